# frozen_string_literal: true

require_relative "test_helper"

class GovernorTest < Minitest::Test
  include CaptureTestHelper
  Governor = Heapleak::Capture::Governor

  def test_fork_when_the_room_covers_half_the_resident_set_and_the_margin
    memory = FakeMemory.new(room: 2 << 30, rss: 1 << 30)
    decision = Governor.new(memory: memory).decide
    assert_equal :fork, decision.mode
    assert_equal (512 << 20) + Governor::MARGIN, decision.need
    assert_match(/2\.0 GiB free/, decision.reason)
  end

  def test_refused_with_the_numbers_when_a_fork_does_not_fit_and_inline_is_not_allowed
    memory = FakeMemory.new(room: 300 << 20, rss: 1 << 30, limit: 2 << 30)
    decision = Governor.new(memory: memory).decide
    assert decision.refused?
    assert_match(/300\.0 MiB free of 2\.0 GiB/, decision.reason)
    assert_match(/576\.0 MiB/, decision.reason)
    assert_match(/HEAPLEAK_CAPTURE_INLINE/, decision.reason)
  end

  def test_inline_when_allowed_and_a_fork_does_not_fit
    memory = FakeMemory.new(room: 10 << 20, rss: 1 << 30)
    decision = Governor.new(memory: memory, allow_inline: true).decide
    assert_equal :inline, decision.mode
    assert_match(/pauses for the whole dump/, decision.reason)
  end

  def test_a_requested_fork_that_does_not_fit_is_refused_even_when_inline_is_allowed
    memory = FakeMemory.new(room: 10 << 20, rss: 1 << 30)
    decision = Governor.new(memory: memory, allow_inline: true).decide(requested: :fork)
    assert decision.refused?
  end

  def test_a_requested_inline_needs_permission
    memory = FakeMemory.new(room: 8 << 30, rss: 1 << 20)
    refute_equal :inline, Governor.new(memory: memory).decide(requested: :inline).mode
    assert_equal :inline, Governor.new(memory: memory, allow_inline: true).decide(requested: :inline).mode
  end

  def test_unknown_room_never_forks
    memory = FakeMemory.new(room: nil, rss: 1 << 20)
    assert Governor.new(memory: memory).decide.refused?
  end
end
