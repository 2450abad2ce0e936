# description.rb: prints the interpreter's version line (ruby_versions.py setup's check).
puts RUBY_DESCRIPTION
