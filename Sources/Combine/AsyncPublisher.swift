// `publisher.values`: a publisher's values as an asynchronous sequence (`for await state in
// store.state.values { … }`), as Combine gives them from iOS 15. The subscription starts with the
// iteration and ends when the loop ends or its task is cancelled. As everywhere in this module,
// demand is not modelled: every value published while the loop's body runs waits for the next
// turn of the loop, where Combine would drop what a subject sends meanwhile.

/// The values of a publisher that never fails, as an `AsyncSequence` (`publisher.values`).
public struct AsyncPublisher<Upstream: Publisher>: AsyncSequence where Upstream.Failure == Never {
  public typealias Element = Upstream.Output

  let upstream: Upstream

  /// The values of `publisher`.
  public init(_ publisher: Upstream) { upstream = publisher }

  /// Iterates the values, subscribing now.
  public struct Iterator: AsyncIteratorProtocol {
    var values: AsyncStream<Carried<Element>>.Iterator

    public mutating func next() async -> Element? { await values.next()?.value }
  }

  public func makeAsyncIterator() -> Iterator {
    let (stream, continuation) = AsyncStream.makeStream(of: Carried<Element>.self, bufferingPolicy: .unbounded)
    let subscription = upstream.subscribe(
      Downstream(receive: { continuation.yield(Carried(value: $0)) }, complete: { _ in continuation.finish() }))
    let held = SubscriptionHolder(subscription)
    continuation.onTermination = { _ in held.cancel() }
    return Iterator(values: stream.makeAsyncIterator())
  }
}

/// The values of a publisher that may fail, as an `AsyncSequence` whose iteration throws the
/// failure (`publisher.values`).
public struct AsyncThrowingPublisher<Upstream: Publisher>: AsyncSequence {
  public typealias Element = Upstream.Output

  let upstream: Upstream

  /// The values of `publisher`.
  public init(_ publisher: Upstream) { upstream = publisher }

  /// Iterates the values, subscribing now.
  public struct Iterator: AsyncIteratorProtocol {
    var values: AsyncThrowingStream<Carried<Element>, Error>.Iterator

    public mutating func next() async throws -> Element? { try await values.next()?.value }
  }

  public func makeAsyncIterator() -> Iterator {
    let (stream, continuation) = AsyncThrowingStream.makeStream(
      of: Carried<Element>.self, throwing: Error.self, bufferingPolicy: .unbounded)
    let subscription = upstream.subscribe(
      Downstream(
        receive: { continuation.yield(Carried(value: $0)) },
        complete: { end in
          switch end {
          case .finished: continuation.finish()
          case .failure(let error): continuation.finish(throwing: error)
          }
        }))
    let held = SubscriptionHolder(subscription)
    continuation.onTermination = { _ in held.cancel() }
    return Iterator(values: stream.makeAsyncIterator())
  }
}

/// A value on its way from a subscription to the task iterating it. Every piece of a run's app
/// code runs on its one thread, so the value never crosses threads.
public struct Carried<Value>: @unchecked Sendable {
  let value: Value
}

/// Keeps an iteration's subscription until the iteration ends.
final class SubscriptionHolder: @unchecked Sendable {
  private var subscription: AnyCancellable?
  init(_ subscription: AnyCancellable) { self.subscription = subscription }
  func cancel() {
    let s = subscription
    subscription = nil
    s?.cancel()
  }
}

extension Publisher where Failure == Never {
  /// The values, as an asynchronous sequence.
  public var values: AsyncPublisher<Self> { AsyncPublisher(self) }
}

extension Publisher {
  /// The values, as an asynchronous sequence that throws the publisher's failure.
  public var values: AsyncThrowingPublisher<Self> { AsyncThrowingPublisher(self) }
}
