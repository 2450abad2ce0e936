# frozen_string_literal: true
#
# session_sweep.rb - a Rack app with cookie sessions that expire, swept the way
# much Ruby code sweeps: `@sessions = @sessions.reject { expired }`, a new Hash
# each time, and a list of recent errors trimmed by `@errors = @errors.last(50)`,
# a new Array each time. Both are bounded, yet neither container is at the
# same address in A, B and C: untraced, their growth reads "? -> n -> ?" unless
# the container is found again where its owner holds it (issue 25, defect 5).
# The leak: CSRF tokens issued per session in `CsrfTokens.@issued`, a class-level
# Hash that the sweep never cleans (sessions expire, their tokens stay).

require 'rack'
require 'rack/mock'
require 'securerandom'

class SessionSweepApp < LeakyApp
  register 'session_sweep'

  Session = Struct.new(:id, :user, :data, :expires_at)
  Token = Struct.new(:session_id, :value, :issued_at)
  ErrorReport = Struct.new(:path, :message, :at)

  # a request clock (ticks, not seconds: the same workload on every machine)
  @now = 0
  class << self
    attr_accessor :now
  end

  class SessionStore
    TTL = 60 # ticks: a session not seen for 60 requests expires
    SWEEP_EVERY = 25
    attr_reader :sessions

    def initialize
      @sessions = {}
      @requests = 0
    end

    def fetch(id, user)
      session = (@sessions[id] ||= Session.new(id.dup, user, { 'cart' => [], 'seen' => 0 }, 0))
      session.expires_at = SessionSweepApp.now + TTL
      session.data['seen'] += 1
      sweep if ((@requests += 1) % SWEEP_EVERY).zero?
      session
    end

    private

    # a new Hash every sweep: the store moves, its contents stay bounded
    def sweep
      now = SessionSweepApp.now
      @sessions = @sessions.reject { |_, s| s.expires_at < now }
    end
  end

  class ErrorLog
    KEEP = 50
    attr_reader :errors

    def initialize = (@errors = [])

    def add(report)
      @errors << report
      @errors = @errors.last(KEEP) if @errors.size > 2 * KEEP # a new Array, half the size
    end
  end

  # the leak: one token per session id ever seen, never removed when its session
  # expires (a regular's id comes back and finds its token; a one-time visitor's stays)
  class CsrfTokens
    @issued = {}
    class << self
      attr_reader :issued

      def for(session)
        @issued[session.id] ||= Token.new(session.id, SecureRandom.hex(16), SessionSweepApp.now)
      end
    end
  end

  STORE = SessionStore.new
  ERRORS = ErrorLog.new

  APP = lambda do |env|
    SessionSweepApp.now += 1
    req = Rack::Request.new(env)
    session = STORE.fetch(req.cookies['sid'] || 'anonymous', req.params['user'])
    token = CsrfTokens.for(session)
    if req.params['fail']
      ERRORS.add(ErrorReport.new(req.path.dup, "invalid token #{token.value[0, 6]} for #{session.id}", SessionSweepApp.now))
      return [422, {}, ['unprocessable']]
    end
    session.data['cart'] << req.params['item'] if req.params['item'] && session.data['cart'].size < 5
    [200, { 'content-type' => 'text/plain' }, ["#{session.user}: #{session.data['cart'].size} items"]]
  end

  def description = 'Rack app whose session store and error list are swept into new containers, and whose CSRF tokens outlive their sessions'
  def requests = 120

  def boot
    @mock = Rack::MockRequest.new(APP)
    @next_sid = 0
    @at_dump = { sessions: { 'A' => 0, 'B' => 0, 'C' => 0 }, errors: { 'A' => 0, 'B' => 0, 'C' => 0 } }
    @samples = Array.new(4)
  end

  def iteration(_iter)
    requests.times do |i|
      # most visitors come once; 15 regulars come back, and start a new session
      # whenever theirs expired (the store's churn: new in B, some still in C)
      sid = rand < 0.6 ? "v#{@next_sid += 1}" : "r#{rand(15)}"
      fail = rand < 0.3 ? '&fail=1' : ''
      res = @mock.get("/cart?user=#{sid}&item=i#{i}#{fail}", 'HTTP_COOKIE' => "sid=#{sid}")
      raise "GET failed: #{res.status}" unless [200, 422].include?(res.status)
    end
  end

  # what only exists at each dump, kept without allocating (immediate Integers,
  # slots made at boot): an object made after A would be new in B for the dumps
  # but old for the driver's walk at A
  def at_dump(name)
    @at_dump[:sessions][name] = Fiddle.dlwrap(STORE.sessions)
    @at_dump[:errors][name] = Fiddle.dlwrap(ERRORS.errors)
    @tokens_at_a = CsrfTokens.issued.size if name == 'A'
    return unless name == 'B'

    # `root` samples: Tokens issued between A and B (values: a session id key is an
    # fstring the session store's Hash shares, so it has two containers)
    fresh = CsrfTokens.issued.values.drop(@tokens_at_a)
    4.times { |k| @samples[k] = fresh[k * fresh.size / 4] }
  end

  def root_samples = @samples

  def holder = CsrfTokens.issued
  def holder_what = 'SessionSweepApp::CsrfTokens.@issued Hash (session id => Token, never removed)'
  def true_leaks = 1

  def replaced
    hex = ->(addresses) { addresses.transform_values { |a| format('0x%x', a) } }
    [['SessionSweepApp::STORE @sessions Hash (swept into a new Hash every 25 requests)', hex[@at_dump[:sessions]],
      SessionStore::TTL + SessionStore::SWEEP_EVERY, STORE], # at most TTL live after a sweep, plus the requests until the next
     ['SessionSweepApp::ERRORS @errors Array (trimmed into a new Array past 100)', hex[@at_dump[:errors]],
      2 * ErrorLog::KEEP, ERRORS]]
  end
end
