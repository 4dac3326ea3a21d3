// The platform's publishers: a timer's ticks and a notification center's posts.

extension Timer {
  /// A publisher of `Date`s every `interval` seconds, once connected (`autoconnect()`, or
  /// `connect()`): the SwiftUI countdown's `Timer.publish(every: 1, on: .main, in: .common)`. The
  /// ticks are a repeating ``Timer`` of the user whose code connected it, on simulated time, and
  /// each value is the simulated wall clock then.
  public static func publish(
    every interval: Double, tolerance: Double? = nil, on runLoop: RunLoop, in mode: RunLoop.Mode,
    options: Never? = nil
  ) -> TimerPublisher {
    TimerPublisher(interval: interval)
  }

  /// The publisher `Timer.publish` makes: it ticks while connected.
  public final class TimerPublisher: Publisher {
    public typealias Output = Date
    public typealias Failure = Never
    /// The seconds between ticks.
    public let interval: Double
    let list = SubscriberList<Date, Never>()
    var timer: Timer?

    init(interval: Double) { self.interval = interval }

    public func subscribe(_ d: Downstream<Date, Never>) -> AnyCancellable { list.add(d) }

    /// Starts the ticks; cancelling the result stops them (letting go of it does not, as in
    /// Combine).
    public func connect() -> Cancellable {
      start()
      return Connection(publisher: self)
    }

    struct Connection: Cancellable {
      weak var publisher: TimerPublisher?
      func cancel() { publisher?.disconnect() }
    }

    func start() {
      guard timer == nil else { return }
      timer = Timer.scheduledTimer(withTimeInterval: interval, repeats: true) { [weak self] _ in
        self?.list.send(Date())
      }
    }

    func disconnect() {
      timer?.invalidate()
      timer = nil
    }

    /// Connects with the first subscriber and disconnects when the last is gone.
    public func autoconnect() -> Operator<Date, Never> {
      Operator { [self] d in
        let inner = list.add(d)
        start()
        return AnyCancellable { [self] in
          inner.cancel()
          if list.count == 0 { disconnect() }
        }
      }
    }
  }
}

extension NotificationCenter {
  /// A publisher of the notifications named `name` (from `object`, if given) posted on this center,
  /// delivered as they are posted.
  public func publisher(for name: Notification.Name, object: AnyObject? = nil) -> Publisher {
    Publisher(center: self, name: name, object: object)
  }

  /// The publisher of a notification center's posts of one name.
  public struct Publisher: Combine.Publisher {
    public typealias Output = Notification
    public typealias Failure = Never
    /// The center.
    public let center: NotificationCenter
    /// The name.
    public let name: Notification.Name
    /// The sender to match, if any.
    public let object: AnyObject?

    public func subscribe(_ d: Downstream<Notification, Never>) -> AnyCancellable {
      let receive = UncheckedBox(d.receive)
      let object = self.object
      let token = center.addObserver(forName: name, object: object, queue: nil) { note in
        if let object, (note.object as AnyObject?) !== object { return }
        receive.value(note)
      }
      let center = self.center
      return AnyCancellable { center.removeObserver(token) }
    }
  }
}

/// A value handed to a `@Sendable` closure on the one simulated thread.
final class UncheckedBox<T>: @unchecked Sendable {
  let value: T
  init(_ value: T) { self.value = value }
}
