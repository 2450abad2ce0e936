# frozen_string_literal: true
#
# thread_locals.rb - a background job runner with two long-lived worker threads.
# Each job appends its context to a thread-local Array (Thread.current[:job_log]),
# meant as per-job debugging state but never cleared; every tenth job also
# registers an at_exit lambda to flush it (held by the VM until exit). The busier
# worker's Array is the holder; the two workers' Arrays are the split case for
# `root`. Benign: a result LRU at its cap and per-job garbage.

class ThreadLocalsApp < LeakyApp
  register 'thread_locals'

  Job = Struct.new(:id, :queue, :args)
  RESULTS = {}

  class Worker
    attr_reader :thread, :log

    def initialize(name)
      @jobs = Queue.new
      @done = Queue.new
      @thread = Thread.new do
        Thread.current.name = name
        Thread.current[:job_log] = []
        @log = Thread.current[:job_log]
        while (job = @jobs.pop)
          @done << perform(job)
        end
      end
      sleep 0.01 until @log
    end

    def run(job)
      @jobs << job
      @done.pop
    end

    def stop = (@jobs << nil; @thread.join)

    private

    def perform(job)
      ctx = { job: job.id, queue: job.queue, args: job.args.map(&:to_s), started: "t#{job.id}" }
      Thread.current[:job_log] << ctx # the bug: the log outlives the job
      at_exit { ctx[:flushed] = true } if (job.id % 10).zero? # and so does this lambda
      scratch = Array.new(20) { |i| "scratch #{job.id} #{i}" }
      RESULTS[job.id] = scratch.size
      RESULTS.delete(RESULTS.first[0]) while RESULTS.size > 30
      :ok
    end
  end

  def description = 'two worker threads keeping every job context in a thread-local Array, plus at_exit lambdas per job'

  def boot
    @busy = Worker.new('busy-worker')
    @idle = Worker.new('idle-worker')
    at_exit { [@busy, @idle].each(&:stop) }
  end

  def iteration(iter)
    requests.times do |i|
      id = iter.abs * 1000 + i
      job = Job.new(id, 'default', [id, "user-#{id}", { 'k' => i }])
      (i % 4 == 3 ? @idle : @busy).run(job) # the busy worker takes three jobs in four
    end
  end

  def holder = @busy.log
  def holder_what = "Thread 'busy-worker' thread-local :job_log Array"
  def leak_roots = [@busy.log, @idle.log]
  def bounded = [['ThreadLocalsApp::RESULTS Hash (cap 30)', RESULTS]]

  def split
    busy = @busy.log.select { |c| c[:job] / 1000 == 2 }.first(2)
    idle = @idle.log.select { |c| c[:job] / 1000 == 2 }.first(2)
    { containers: [
      { what: "busy-worker's :job_log Array", accept: [@busy.log], samples: busy },
      { what: "idle-worker's :job_log Array", accept: [@idle.log], samples: idle },
    ] }
  end
end
