// More of Combine, as view models use it: publishers that wrap an SDK's completion (`Future`,
// `Deferred`), the operators that shape a stream (`dropFirst`, `first`, `prefix`, `scan`,
// `handleEvents`, error handling), the ones that join streams (`combineLatest`, `merge`,
// `flatMap`, `switchToLatest`) and the ones that wait (`debounce`, `throttle`, `delay`), which
// wait simulated time on the scheduler they are given, as `receive(on:)` does.

/// How long a time-based operator waits: `.seconds(1)`, `.milliseconds(300)`, or a number of
/// seconds (`0.5`), as Combine's scheduler strides are written.
public struct SchedulerStride: Comparable, Sendable, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
  /// The length in nanoseconds.
  public var nanoseconds: Int64

  /// A stride of `nanoseconds`.
  public init(nanoseconds: Int64) { self.nanoseconds = max(0, nanoseconds) }
  public init(floatLiteral seconds: Double) { self = .seconds(seconds) }
  public init(integerLiteral seconds: Int) { self = .seconds(seconds) }

  /// `s` seconds.
  public static func seconds(_ s: Double) -> SchedulerStride {
    SchedulerStride(nanoseconds: Int64((s * 1e9).rounded()))
  }
  /// `s` seconds.
  public static func seconds(_ s: Int) -> SchedulerStride { SchedulerStride(nanoseconds: Int64(s) * 1_000_000_000) }
  /// `ms` milliseconds.
  public static func milliseconds(_ ms: Int) -> SchedulerStride { SchedulerStride(nanoseconds: Int64(ms) * 1_000_000) }
  /// `us` microseconds.
  public static func microseconds(_ us: Int) -> SchedulerStride { SchedulerStride(nanoseconds: Int64(us) * 1_000) }
  /// `ns` nanoseconds.
  public static func nanoseconds(_ ns: Int) -> SchedulerStride { SchedulerStride(nanoseconds: Int64(ns)) }

  public static func < (a: SchedulerStride, b: SchedulerStride) -> Bool { a.nanoseconds < b.nanoseconds }
}

/// A scheduler that waits: the simulated platform's queues and run loop (their work runs as the
/// current user's, at simulated times).
public protocol TimedScheduler: Scheduler {
  /// Runs `action` after `stride` of simulated time.
  func schedule(after stride: SchedulerStride, _ action: @escaping () -> Void)
}

extension TimedScheduler {
  /// The platform's queues and run loop all wait alike: the current user's work, later.
  public func schedule(after stride: SchedulerStride, _ action: @escaping () -> Void) {
    AppHost.inUser("a Combine operator's wait")?.post(action, after: .nanoseconds(stride.nanoseconds))
  }
}

extension DispatchQueue: TimedScheduler {}

extension RunLoop: TimedScheduler {
  public func schedule(_ action: @escaping () -> Void) { schedule(after: .nanoseconds(0), action) }
}

/// A scheduler that runs work at once, on the caller's turn.
public struct ImmediateScheduler: Scheduler, Sendable {
  /// The scheduler.
  public static let shared = ImmediateScheduler()
  public func schedule(_ action: @escaping () -> Void) { action() }
}

/// A publisher that eventually produces one value and finishes, or fails: the usual wrapper of a
/// completion-handler API. As Combine's, the closure runs at once, when the future is made, and
/// every subscriber (before or after the result) gets the one result.
public final class Future<Output, Failure: Error>: Publisher {
  /// What the closure calls with the result.
  public typealias Promise = (Result<Output, Failure>) -> Void
  private var result: Result<Output, Failure>?
  private let list = SubscriberList<Output, Failure>()

  /// A future that runs `attemptToFulfill` now; its first call of the promise decides.
  public init(_ attemptToFulfill: @escaping (@escaping Promise) -> Void) {
    attemptToFulfill { [weak self] result in self?.fulfil(result) }
  }

  private func fulfil(_ result: Result<Output, Failure>) {
    guard self.result == nil else { return }
    self.result = result
    switch result {
    case .success(let value):
      list.send(value)
      list.finish(.finished)
    case .failure(let error): list.finish(.failure(error))
    }
  }

  public func subscribe(_ d: Downstream<Output, Failure>) -> AnyCancellable {
    switch result {
    case .success(let value)?:
      d.receive(value)
      d.complete(.finished)
      return AnyCancellable {}
    case .failure(let error)?:
      d.complete(.failure(error))
      return AnyCancellable {}
    case nil:
      // The subscription holds the future until its result or the cancellation.
      let inner = list.add(d)
      return AnyCancellable { [self] in
        _ = self
        inner.cancel()
      }
    }
  }
}

/// A publisher made anew, by `createPublisher`, for each subscriber.
public struct Deferred<DeferredPublisher: Publisher>: Publisher {
  public typealias Output = DeferredPublisher.Output
  public typealias Failure = DeferredPublisher.Failure
  /// Makes the publisher.
  public let createPublisher: () -> DeferredPublisher
  /// A deferred publisher.
  public init(createPublisher: @escaping () -> DeferredPublisher) { self.createPublisher = createPublisher }
  public func subscribe(_ d: Downstream<Output, Failure>) -> AnyCancellable { createPublisher().subscribe(d) }
}

/// A publisher that sends nothing, and finishes at once unless told not to.
public struct Empty<Output, Failure: Error>: Publisher {
  /// Whether it finishes at once.
  public let completeImmediately: Bool
  /// An empty publisher.
  public init(completeImmediately: Bool = true) { self.completeImmediately = completeImmediately }
  /// An empty publisher of the given types.
  public init(completeImmediately: Bool = true, outputType: Output.Type, failureType: Failure.Type) {
    self.completeImmediately = completeImmediately
  }
  public func subscribe(_ d: Downstream<Output, Failure>) -> AnyCancellable {
    if completeImmediately { d.complete(.finished) }
    return AnyCancellable {}
  }
}

/// A publisher that fails at once with `error`.
public struct Fail<Output, Failure: Error>: Publisher {
  /// The error.
  public let error: Failure
  /// A publisher failing with `error`.
  public init(error: Failure) { self.error = error }
  /// A publisher of the given output type failing with `error`.
  public init(outputType: Output.Type, failure: Failure) { error = failure }
  public func subscribe(_ d: Downstream<Output, Failure>) -> AnyCancellable {
    d.complete(.failure(error))
    return AnyCancellable {}
  }
}

/// An operator as one closure from its downstream to its upstream's: the shape of most operators
/// here (`dropFirst`, `prefix`, `scan`, error handling and the rest).
public struct Operator<Output, Failure: Error>: Publisher {
  let attach: (Downstream<Output, Failure>) -> AnyCancellable
  public func subscribe(_ d: Downstream<Output, Failure>) -> AnyCancellable { attach(d) }
}

/// The cancellables of a subscription that holds several (an upstream and inner publishers).
final class Bag {
  var items: [AnyCancellable] = []
  var cancelled = false
  func add(_ c: AnyCancellable) { items.append(c) }
  func cancel() {
    cancelled = true
    let all = items
    items = []
    for c in all { c.cancel() }
  }

  /// The end of a stream joined from two: the first failure at once, else finished once both are.
  static func endOfTwo<T, F>(_ d: Downstream<T, F>) -> (Subscribers.Completion<F>) -> Void {
    let finished = Box(0)
    let failed = Box(false)
    return { c in
      guard !failed.value else { return }
      if case .failure = c {
        failed.value = true
        d.complete(c)
      } else {
        finished.value += 1
        if finished.value == 2 { d.complete(.finished) }
      }
    }
  }
}

extension Publisher {
  /// Leaves out the first `count` values.
  public func dropFirst(_ count: Int = 1) -> Operator<Output, Failure> {
    Operator { d in
      let seen = Box(0)
      return self.subscribe(
        Downstream(
          receive: { v in
            if seen.value < count {
              seen.value += 1
            } else {
              d.receive(v)
            }
          }, complete: d.complete))
    }
  }

  /// Takes the first `maxLength` values, then finishes.
  public func prefix(_ maxLength: Int) -> Operator<Output, Failure> {
    Operator { d in
      let taken = Box(0)
      let done = Box(false)
      let upstream = Box<AnyCancellable?>(nil)
      if maxLength <= 0 {
        d.complete(.finished)
        return AnyCancellable {}
      }
      let c = self.subscribe(
        Downstream(
          receive: { v in
            guard !done.value else { return }
            taken.value += 1
            d.receive(v)
            if taken.value >= maxLength {
              done.value = true
              d.complete(.finished)
              upstream.value?.cancel()
            }
          },
          complete: { c in
            if !done.value {
              done.value = true
              d.complete(c)
            }
          }))
      upstream.value = c
      return AnyCancellable {
        done.value = true
        c.cancel()
      }
    }
  }

  /// Takes the first value, then finishes.
  public func first() -> Operator<Output, Failure> { prefix(1) }

  /// Takes the first value that passes `predicate`, then finishes.
  public func first(where predicate: @escaping (Output) -> Bool) -> Operator<Output, Failure> {
    filter(predicate).prefix(1)
  }

  /// Each value combined with the result so far, starting from `initialResult`.
  public func scan<T>(_ initialResult: T, _ next: @escaping (T, Output) -> T) -> Operator<T, Failure> {
    Operator { d in
      let acc = Box(initialResult)
      return self.subscribe(
        Downstream(
          receive: { v in
            acc.value = next(acc.value, v)
            d.receive(acc.value)
          }, complete: d.complete))
    }
  }

  /// Runs the closures as values, the end and a cancellation pass.
  public func handleEvents(
    receiveSubscription: ((Any) -> Void)? = nil, receiveOutput: ((Output) -> Void)? = nil,
    receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil, receiveCancel: (() -> Void)? = nil,
    receiveRequest: ((Any) -> Void)? = nil
  ) -> Operator<Output, Failure> {
    Operator { d in
      receiveSubscription?(())
      let c = self.subscribe(
        Downstream(
          receive: { v in
            receiveOutput?(v)
            d.receive(v)
          },
          complete: { c in
            receiveCompletion?(c)
            d.complete(c)
          }))
      return AnyCancellable {
        receiveCancel?()
        c.cancel()
      }
    }
  }

  /// Changes the error a failure carries.
  public func mapError<E: Error>(_ transform: @escaping (Failure) -> E) -> Operator<Output, E> {
    Operator { d in
      self.subscribe(
        Downstream(
          receive: d.receive,
          complete: { c in
            switch c {
            case .finished: d.complete(.finished)
            case .failure(let e): d.complete(.failure(transform(e)))
            }
          }))
    }
  }

  /// Replaces a failure with `output`, then finishes.
  public func replaceError(with output: Output) -> Operator<Output, Never> {
    Operator { d in
      self.subscribe(
        Downstream(
          receive: d.receive,
          complete: { c in
            if case .failure = c { d.receive(output) }
            d.complete(.finished)
          }))
    }
  }

  /// Replaces a failure with the publisher `handler` makes of it.
  public func `catch`<P: Publisher>(_ handler: @escaping (Failure) -> P) -> Operator<Output, P.Failure>
  where P.Output == Output {
    Operator { d in
      let bag = Bag()
      let c = self.subscribe(
        Downstream(
          receive: d.receive,
          complete: { c in
            switch c {
            case .finished: d.complete(.finished)
            case .failure(let e): if !bag.cancelled { bag.add(handler(e).subscribe(d)) }
            }
          }))
      bag.add(c)
      return AnyCancellable { bag.cancel() }
    }
  }

  /// Transforms each value with a closure that may throw; a throw ends the stream with the error.
  public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Operator<T, Error> {
    Operator { d in
      let done = Box(false)
      let upstream = Box<AnyCancellable?>(nil)
      let c = self.subscribe(
        Downstream(
          receive: { v in
            guard !done.value else { return }
            do {
              d.receive(try transform(v))
            } catch {
              done.value = true
              d.complete(.failure(error))
              upstream.value?.cancel()
            }
          },
          complete: { c in
            guard !done.value else { return }
            done.value = true
            switch c {
            case .finished: d.complete(.finished)
            case .failure(let e): d.complete(.failure(e))
            }
          }))
      upstream.value = c
      return c
    }
  }

  /// Each value paired with the latest of `other`, once both have sent one.
  public func combineLatest<P: Publisher>(_ other: P) -> Operator<(Output, P.Output), Failure>
  where P.Failure == Failure {
    combineLatest(other) { ($0, $1) }
  }

  /// `transform` of each value and the latest of `other`, once both have sent one; finishes when
  /// both have.
  public func combineLatest<P: Publisher, T>(_ other: P, _ transform: @escaping (Output, P.Output) -> T)
    -> Operator<T, Failure> where P.Failure == Failure
  {
    Operator { d in
      let a = Box<Output?>(nil)
      let b = Box<P.Output?>(nil)
      let complete = Bag.endOfTwo(d)
      let c1 = self.subscribe(
        Downstream(
          receive: { v in
            a.value = v
            if let w = b.value { d.receive(transform(v, w)) }
          }, complete: complete))
      let c2 = other.subscribe(
        Downstream(
          receive: { w in
            b.value = w
            if let v = a.value { d.receive(transform(v, w)) }
          }, complete: complete))
      return AnyCancellable {
        c1.cancel()
        c2.cancel()
      }
    }
  }

  /// The values of this publisher and of `other`, as they come; finishes when both have.
  public func merge<P: Publisher>(with other: P) -> Operator<Output, Failure>
  where P.Output == Output, P.Failure == Failure {
    Operator { d in
      let complete = Bag.endOfTwo(d)
      let c1 = self.subscribe(Downstream(receive: d.receive, complete: complete))
      let c2 = other.subscribe(Downstream(receive: d.receive, complete: complete))
      return AnyCancellable {
        c1.cancel()
        c2.cancel()
      }
    }
  }

  /// The values of the publisher `transform` makes of each value, all of them as they come
  /// (`maxPublishers` is accepted and ignored); finishes when this one and every inner one have.
  public func flatMap<P: Publisher>(maxPublishers: Int? = nil, _ transform: @escaping (Output) -> P)
    -> Operator<P.Output, Failure> where P.Failure == Failure
  {
    Operator { d in
      let bag = Bag()
      let open = Box(1)
      let failed = Box(false)
      let complete: (Subscribers.Completion<Failure>) -> Void = { c in
        guard !failed.value else { return }
        if case .failure = c {
          failed.value = true
          d.complete(c)
          bag.cancel()
        } else {
          open.value -= 1
          if open.value == 0 { d.complete(.finished) }
        }
      }
      bag.add(
        self.subscribe(
          Downstream(
            receive: { v in
              guard !bag.cancelled else { return }
              open.value += 1
              bag.add(transform(v).subscribe(Downstream(receive: d.receive, complete: complete)))
            }, complete: complete)))
      return AnyCancellable { bag.cancel() }
    }
  }

  /// Waits until no value has come for `dueTime` on `scheduler`, then sends the last one.
  public func debounce<S: TimedScheduler>(for dueTime: SchedulerStride, scheduler: S, options: Never? = nil)
    -> Operator<Output, Failure>
  {
    Operator { d in
      let generation = Box(0)
      let cancelled = Box(false)
      let c = self.subscribe(
        Downstream(
          receive: { v in
            generation.value += 1
            let mine = generation.value
            scheduler.schedule(after: dueTime) {
              if !cancelled.value && generation.value == mine { d.receive(v) }
            }
          },
          complete: { c in scheduler.schedule { if !cancelled.value { d.complete(c) } } }))
      return AnyCancellable {
        cancelled.value = true
        c.cancel()
      }
    }
  }

  /// At most one value every `interval` on `scheduler`: the first (or, with `latest`, the last)
  /// of each interval, sent at its end (a value into a quiet stream goes at once).
  public func throttle<S: TimedScheduler>(for interval: SchedulerStride, scheduler: S, latest: Bool)
    -> Operator<Output, Failure>
  {
    Operator { d in
      let pending = Box<Output?>(nil)
      let waiting = Box(false)
      let cancelled = Box(false)
      func open() {
        waiting.value = true
        scheduler.schedule(after: interval) {
          guard !cancelled.value else { return }
          if let v = pending.value {
            pending.value = nil
            d.receive(v)
            open()
          } else {
            waiting.value = false
          }
        }
      }
      let c = self.subscribe(
        Downstream(
          receive: { v in
            if !waiting.value {
              d.receive(v)
              open()
            } else if latest || pending.value == nil {
              pending.value = v
            }
          },
          complete: { c in scheduler.schedule { if !cancelled.value { d.complete(c) } } }))
      return AnyCancellable {
        cancelled.value = true
        c.cancel()
      }
    }
  }

  /// Sends each value (and the end) `interval` later, on `scheduler`.
  public func delay<S: TimedScheduler>(for interval: SchedulerStride, scheduler: S, options: Never? = nil)
    -> Operator<Output, Failure>
  {
    Operator { d in
      let cancelled = Box(false)
      let c = self.subscribe(
        Downstream(
          receive: { v in scheduler.schedule(after: interval) { if !cancelled.value { d.receive(v) } } },
          complete: { c in scheduler.schedule(after: interval) { if !cancelled.value { d.complete(c) } } }))
      return AnyCancellable {
        cancelled.value = true
        c.cancel()
      }
    }
  }
}

extension Publisher where Failure == Never {
  /// The same values, typed as failing with `failureType` (they never do).
  public func setFailureType<E: Error>(to failureType: E.Type) -> Operator<Output, E> {
    Operator { d in self.subscribe(Downstream(receive: d.receive, complete: { _ in d.complete(.finished) })) }
  }
}

extension Publisher where Output: Publisher, Output.Failure == Failure {
  /// The values of the latest inner publisher only: a new one cancels the one before.
  public func switchToLatest() -> Operator<Output.Output, Failure> {
    Operator { d in
      let inner = Box<AnyCancellable?>(nil)
      let outerDone = Box(false)
      let innerOpen = Box(false)
      let c = self.subscribe(
        Downstream(
          receive: { p in
            inner.value?.cancel()
            innerOpen.value = true
            inner.value = p.subscribe(
              Downstream(
                receive: d.receive,
                complete: { c in
                  innerOpen.value = false
                  if case .failure = c { d.complete(c) } else if outerDone.value { d.complete(.finished) }
                }))
          },
          complete: { c in
            outerDone.value = true
            if case .failure = c { d.complete(c) } else if !innerOpen.value { d.complete(.finished) }
          }))
      return AnyCancellable {
        inner.value?.cancel()
        c.cancel()
      }
    }
  }
}

extension Publisher {
  /// Replaces `nil` values with `output`.
  public func replaceNil<T>(with output: T) -> Publishers.Map<Self, T> where Output == T? {
    map { $0 ?? output }
  }
}
