import LiveStack
import SimKernel

/// Settings of ``StandardPhone``; profile keys under `calls`.
public struct PhoneSettings: Sendable {
  /// Time between a phone's dial attempts.
  public var dialEvery: Distribution
  /// Probability that a dial is a group call.
  public var groupProbability: Ratio
  /// The most callees of a group call (2 to 8).
  public var maxGroupCallees: Int
  /// Probability that a call is video.
  public var videoProbability: Ratio
  /// The timeout passed to `calls()` (zero: the server's 30 s).
  public var timeout: SimDuration
  /// Probability of answering (otherwise declining) a call.
  public var answerProbability: Ratio
  /// Time from ringing to answering or declining.
  public var answerAfter: Distribution
  /// Time in a connected call before hanging up.
  public var talkTime: Distribution
  /// How long a caller waits for an answer before cancelling; `nil`: until the timeout.
  public var patience: Distribution?

  /// Creates settings.
  public init(
    dialEvery: Distribution, groupProbability: Ratio, maxGroupCallees: Int, videoProbability: Ratio,
    timeout: SimDuration, answerProbability: Ratio, answerAfter: Distribution, talkTime: Distribution,
    patience: Distribution?
  ) {
    precondition((2...8).contains(maxGroupCallees), "a group call has 2 to 8 callees")
    self.dialEvery = dialEvery
    self.groupProbability = groupProbability
    self.maxGroupCallees = maxGroupCallees
    self.videoProbability = videoProbability
    self.timeout = timeout
    self.answerProbability = answerProbability
    self.answerAfter = answerAfter
    self.talkTime = talkTime
    self.patience = patience
  }
}

/// The built-in phone user: logs in, dials other phones now and then (sometimes a group), answers
/// or declines incoming calls after a while, hangs up after talking, and cancels when nobody
/// answers within its patience. It uses only the SDK's call state, never a private copy.
public final class StandardPhone: ClientBehavior {
  /// The settings.
  public let settings: PhoneSettings
  /// The phone users it may call.
  public let phones: Range<UInt32>
  let epoch: Column<UInt32>

  enum Tag: UInt32 {
    case dial = 1
    case answer, hangUp, giveUp
  }

  /// Creates the behaviour for phones `phones` of `userCount` users.
  public init(settings: PhoneSettings, phones: Range<UInt32>, userCount: Int) {
    self.settings = settings
    self.phones = phones
    epoch = Column(repeating: 0, count: userCount)
  }

  public func start(_ c: inout Client) {
    c.callStore.subscribe()
    c.login.subscribeEvents()
    c.login.login { [unowned(unsafe) self] c, result in
      guard case .success = result else { return }
      self.scheduleDial(&c)
    }
  }

  func scheduleDial(_ c: inout Client) {
    c.schedule(after: settings.dialEvery.sampleDuration(&c.random), tag: Tag.dial.rawValue, arg: epoch[Int(c.user)])
  }

  public func timer(tag: UInt32, arg: UInt32, _ c: inout Client) {
    let store = c.callStore
    switch Tag(rawValue: tag) {
    case .dial:
      guard arg == epoch[Int(c.user)], c.login.isLogin else { return }
      guard store.state == .none else { return }  // the call's end schedules the next dial
      dial(&c)
    case .answer:
      guard store.currentCall == arg, store.state == .waiting else { return }
      if c.random.chance(settings.answerProbability) { store.accept() } else { store.reject() }
    case .hangUp, .giveUp:
      guard store.currentCall == arg else { return }
      if tag == Tag.giveUp.rawValue && store.state != .waiting { return }
      store.hangup()
    case nil:
      preconditionFailure("unknown phone timer tag \(tag)")
    }
  }

  func dial(_ c: inout Client) {
    var count = 1
    if c.random.chance(settings.groupProbability) {
      count = 2 + Int(c.random.next(below: UInt64(settings.maxGroupCallees - 1)))
    }
    count = min(count, phones.count - 1)
    guard count >= 1 else { return }
    var callees: [UInt32] = []
    while callees.count < count {
      let u = phones.lowerBound + UInt32(c.random.next(below: UInt64(phones.count)))
      if u != c.user && !callees.contains(u) { callees.append(u) }
    }
    let media: CallMediaType = c.random.chance(settings.videoProbability) ? .video : .audio
    epoch[Int(c.user)] &+= 1
    c.callStore.calls(participantIds: callees, mediaType: media, timeout: settings.timeout) {
      [unowned(unsafe) self] c, result in
      if case .failure = result { self.scheduleDial(&c) } else { self.armPatience(&c) }
    }
  }

  public func callEvent(_ event: CallEvent, _ c: inout Client) {
    switch event {
    case .received(_, let call):
      c.schedule(after: settings.answerAfter.sampleDuration(&c.random), tag: Tag.answer.rawValue, arg: call)
    case .started(_, let call):
      c.schedule(after: settings.talkTime.sampleDuration(&c.random), tag: Tag.hangUp.rawValue, arg: call)
    case .ended:
      epoch[Int(c.user)] &+= 1
      scheduleDial(&c)
    }
  }

  /// After `calls()` succeeds the caller may give up before anyone answers.
  func armPatience(_ c: inout Client) {
    guard let patience = settings.patience, let call = c.callStore.currentCall else { return }
    c.schedule(after: patience.sampleDuration(&c.random), tag: Tag.giveUp.rawValue, arg: call)
  }
}
