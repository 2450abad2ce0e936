# Three heap dumps of a test run for `heapleak check`: A a third of the way in
# (the app has warmed up), B at two thirds, C at the end, with allocation
# tracing so each leak comes with file:line. Require it from test_helper.rb
# (Minitest, Rails' ActiveSupport::TestCase included) or spec_helper.rb
# (RSpec) and run the suite with HEAPLEAK_DUMPS=DIR; it does nothing without.
#
# Under parallel workers (`parallelize(workers: N)`: forked processes) one
# worker takes the three dumps, of its own heap, where the whole run (every
# worker's tests, counted in a shared file) is a third, two thirds and done;
# while it dumps, the other workers wait, so its share of the tests between
# the dumps stays its share. A dump is written to a temporary file and
# renamed: `heapleak check` never reads half of one. When the dumping worker
# ran no test between two points, the later dump is not taken, and check
# says the dump is missing (exit 6) rather than judging dumps with nothing
# between them.
if (dir = ENV['HEAPLEAK_DUMPS'])
  require 'objspace'
  require 'fileutils'
  ObjectSpace.trace_object_allocations_start
  FileUtils.mkdir_p(dir)
  counter = File.join(dir, '.tests-done') # every process's tests, counted
  claim = File.join(dir, '.dumper')       # the pid of the process that dumps
  pause = File.join(dir, '.pause')        # held while it dumps: the others wait
  File.write(counter, '0')
  FileUtils.rm_f(claim)
  main_pid = Process.pid
  lock = Mutex.new
  own = 0       # tests this process has run
  taken = {}    # dump name => own count when taken
  dumper = nil  # does this process take the dumps? The first to end a test does.
  take = lambda do |name|
    lock.synchronize do
      next if taken.key?(name)
      File.open(pause, File::RDWR | File::CREAT) do |held|
        held.flock(File::LOCK_EX)
        GC.start
        path = File.join(dir, "#{name}.json")
        File.open("#{path}.tmp", 'w') { |f| ObjectSpace.dump_all(output: f) }
        File.rename("#{path}.tmp", path)
      end
      taken[name] = own
    end
  end
  # The next dump only once this process ran a test since the last one.
  ran_since = ->(name) { taken.key?(name) && own > taken[name] }
  test_done = lambda do |total|
    File.open(pause, File::RDWR | File::CREAT) { |held| held.flock(File::LOCK_SH) }
    done = File.open(counter, 'r+') do |f|
      f.flock(File::LOCK_EX)
      n = f.read.to_i + 1
      f.rewind
      f.write(n.to_s)
      n
    end
    own += 1
    if dumper.nil?
      dumper = begin
        File.open(claim, File::WRONLY | File::CREAT | File::EXCL) { |f| f.write(Process.pid) }
        at_exit { take.call(:C) if ran_since.call(:B) } if Process.pid != main_pid # a forked worker
        true
      rescue Errno::EEXIST
        false
      end
    end
    next unless dumper
    take.call(:A) if done >= [total / 3, 1].max
    take.call(:B) if done >= [2 * total / 3, 2].max && ran_since.call(:A)
  end
  if defined?(RSpec.configure)
    RSpec.configure do |config|
      config.after(:each) { test_done.call(RSpec.world.example_count) }
      config.after(:suite) { take.call(:C) if dumper && ran_since.call(:B) }
    end
  else
    require 'minitest'
    Minitest::Test.prepend(Module.new do
      define_method(:after_teardown) do
        super()
        test_done.call(Minitest::Runnable.runnables.sum { |k| k.runnable_methods.size })
      end
    end)
    Minitest.after_run { take.call(:C) if dumper && ran_since.call(:B) && Process.pid == main_pid }
  end
end
