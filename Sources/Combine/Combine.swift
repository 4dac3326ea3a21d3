@_exported import VirtualPlatform

// The subset of Combine that view models written against AtomicXCore use, for platforms without
// Apple's Combine. Semantics follow Combine where app code can tell the difference:
// - every `sink` is its own subscription: two sinks on one publisher both receive every value;
// - a subscription lives as long as its `AnyCancellable`: dropping it (or never storing it) ends
//   the subscription at once;
// - `receive(on:)` delivers each value later, as its own event on the given queue, and drops it if
//   the subscription was cancelled meanwhile;
// - `@Published` publishes the new value before the property changes (`willSet` semantics), and a
//   new subscriber receives the current value first.
// Demand (back-pressure) is not modelled: every subscriber takes every value.

/// How a publisher finished.
public enum Subscribers {
  /// A publisher's end: normally or with an error.
  public enum Completion<Failure: Error> {
    /// Finished normally.
    case finished
    /// Finished with an error.
    case failure(Failure)
  }
}

/// Something that can be cancelled.
public protocol Cancellable {
  /// Ends the activity.
  func cancel()
}

/// A type-erasing cancellable that cancels when it is deinitialized, as Combine's does.
public final class AnyCancellable: Cancellable, Hashable {
  private var onCancel: (() -> Void)?

  /// A cancellable that runs `cancel` once, on `cancel()` or deinit.
  public init(_ cancel: @escaping () -> Void) { onCancel = cancel }

  /// Wraps another cancellable.
  public convenience init<C: Cancellable>(_ canceller: C) { self.init { canceller.cancel() } }

  deinit { onCancel?() }

  public func cancel() {
    let c = onCancel
    onCancel = nil
    c?()
  }

  /// Keeps this cancellable (and so its subscription) alive as long as `set`.
  public func store(in set: inout Set<AnyCancellable>) { set.insert(self) }

  /// Keeps this cancellable alive as long as `collection`.
  public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
    collection.append(self)
  }

  public static func == (a: AnyCancellable, b: AnyCancellable) -> Bool { a === b }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A receiver of values, handed to ``Publisher/subscribe(_:)``.
public struct Downstream<Input, Failure: Error> {
  /// Takes a value.
  public let receive: (Input) -> Void
  /// Takes the end.
  public let complete: (Subscribers.Completion<Failure>) -> Void

  /// A receiver made of two closures.
  public init(
    receive: @escaping (Input) -> Void, complete: @escaping (Subscribers.Completion<Failure>) -> Void = { _ in }
  ) {
    self.receive = receive
    self.complete = complete
  }
}

/// A source of values over time. Unlike Combine's, the one requirement takes a ``Downstream`` of
/// closures and returns the subscription's ``AnyCancellable`` (there is no demand to negotiate);
/// the operators app code calls are the same.
public protocol Publisher<Output, Failure> {
  /// The values published.
  associatedtype Output
  /// The error a publisher may end with.
  associatedtype Failure: Error
  /// Attaches `downstream`; the subscription lasts until the returned cancellable is cancelled or
  /// deinitialized.
  func subscribe(_ downstream: Downstream<Output, Failure>) -> AnyCancellable
}

/// A publisher you can send values through.
public protocol Subject<Output, Failure>: AnyObject, Publisher {
  /// Sends `value` to every current subscriber.
  func send(_ value: Output)
  /// Ends the stream for every subscriber.
  func send(completion: Subscribers.Completion<Failure>)
}

/// A reference that its target clears as it goes: what a `[weak target]` capture gives, without
/// the weak reference. An object that is referenced weakly keeps its reference counts in a side
/// table, a separate allocation that every later retain and release of it visits; subjects are
/// retained on every delivery, so their cancellables reach them through a link instead. The
/// target must set ``target`` to `nil` in its `deinit`.
package final class Link<Target: AnyObject> {
  /// The target, while it lives.
  package unowned(unsafe) var target: Target?
  /// A link to `target`.
  package init(_ target: Target) { self.target = target }
}

/// The subscribers of a subject, in subscription order.
final class SubscriberList<Output, Failure: Error> {
  // The count comes first: its offset does not depend on the generic types, so reading it needs
  // no type metadata.
  @exclusivity(unchecked) var count = 0
  @exclusivity(unchecked) var nextID: UInt64 = 0
  @exclusivity(unchecked) var finished = false
  struct Entry {
    let id: UInt64
    let downstream: Downstream<Output, Failure>
  }
  @exclusivity(unchecked) var entries: [Entry] = []
  /// Called when the count of subscribers changes (the SDK facades map it to the model's
  /// subscriptions).
  var onCountChange: ((Int) -> Void)?
  /// How this list's cancellables reach it (made with the first).
  private var link: Link<SubscriberList>?

  deinit { link?.target = nil }

  /// Adds `d`; the subscription lasts until the returned cancellable is cancelled or deinitialized.
  func add(_ d: Downstream<Output, Failure>) -> AnyCancellable {
    let id = nextID
    nextID += 1
    entries.append(Entry(id: id, downstream: d))
    count = entries.count
    onCountChange?(count)
    let link = self.link ?? Link(self)
    self.link = link
    return AnyCancellable {
      guard let self = link.target, let i = self.entries.firstIndex(where: { $0.id == id }) else { return }
      self.entries.remove(at: i)
      self.count = self.entries.count
      self.onCountChange?(self.count)
    }
  }

  /// Hands `value` to every current subscriber, in subscription order.
  func send(_ value: Output) {
    guard !finished, count > 0 else { return }
    if count == 1 {
      entries[0].downstream.receive(value)
      return
    }
    // A snapshot: subscribers added while sending miss this value, cancelled ones still in the
    // snapshot are skipped.
    let snapshot = entries
    for e in snapshot where entries.contains(where: { $0.id == e.id }) { e.downstream.receive(value) }
  }

  func finish(_ completion: Subscribers.Completion<Failure>) {
    guard !finished else { return }
    finished = true
    let snapshot = entries
    entries.removeAll()
    count = 0
    for e in snapshot { e.downstream.complete(completion) }
    onCountChange?(0)
  }
}

/// A subject that relays values to its current subscribers, keeping none.
public final class PassthroughSubject<Output, Failure: Error>: Subject {
  let list = SubscriberList<Output, Failure>()

  /// A subject.
  public init() {}

  /// The number of current subscribers.
  public var subscriberCount: Int { list.count }

  /// Called with the subscriber count whenever it changes.
  public var onSubscriberCountChange: ((Int) -> Void)? {
    get { list.onCountChange }
    set { list.onCountChange = newValue }
  }

  public func subscribe(_ downstream: Downstream<Output, Failure>) -> AnyCancellable { list.add(downstream) }
  public func send(_ value: Output) { list.send(value) }
  public func send(completion: Subscribers.Completion<Failure>) { list.finish(completion) }
}

/// A subject that keeps its latest value and gives it to each new subscriber first.
public final class CurrentValueSubject<Output, Failure: Error>: Subject {
  let list = SubscriberList<Output, Failure>()

  /// The latest value; setting it sends it.
  public var value: Output {
    didSet { list.send(value) }
  }

  /// A subject holding `value`.
  public init(_ value: Output) { self.value = value }

  /// The number of current subscribers.
  public var subscriberCount: Int { list.count }

  public func subscribe(_ downstream: Downstream<Output, Failure>) -> AnyCancellable {
    let c = list.add(downstream)
    downstream.receive(value)
    return c
  }
  public func send(_ value: Output) { self.value = value }
  public func send(completion: Subscribers.Completion<Failure>) { list.finish(completion) }
}

/// A type-erased publisher.
public struct AnyPublisher<Output, Failure: Error>: Publisher {
  let attach: (Downstream<Output, Failure>) -> AnyCancellable

  /// Erases `publisher`.
  public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {
    attach = publisher.subscribe
  }

  public func subscribe(_ downstream: Downstream<Output, Failure>) -> AnyCancellable { attach(downstream) }
}

/// A publisher that sends one value and finishes.
public struct Just<Output>: Publisher {
  public typealias Failure = Never
  /// The value.
  public let output: Output
  /// A publisher of `output`.
  public init(_ output: Output) { self.output = output }
  public func subscribe(_ downstream: Downstream<Output, Never>) -> AnyCancellable {
    downstream.receive(output)
    downstream.complete(.finished)
    return AnyCancellable {}
  }
}

/// A place that runs work later: the queues of the simulated platform.
public protocol Scheduler {
  /// Runs `action` later, in order.
  func schedule(_ action: @escaping () -> Void)
}

extension DispatchQueue: Scheduler {
  public func schedule(_ action: @escaping () -> Void) {
    AppHost.inUser("receive(on:)")?.post(action)
  }
}

final class Box<T> {
  var value: T
  init(_ value: T) { self.value = value }
}

/// The operators.
public enum Publishers {
  /// `map`.
  public struct Map<Upstream: Publisher, Output>: Publisher {
    public typealias Failure = Upstream.Failure
    let upstream: Upstream
    let transform: (Upstream.Output) -> Output
    public func subscribe(_ d: Downstream<Output, Failure>) -> AnyCancellable {
      let t = transform
      return upstream.subscribe(Downstream(receive: { d.receive(t($0)) }, complete: d.complete))
    }
  }

  /// `compactMap`.
  public struct CompactMap<Upstream: Publisher, Output>: Publisher {
    public typealias Failure = Upstream.Failure
    let upstream: Upstream
    let transform: (Upstream.Output) -> Output?
    public func subscribe(_ d: Downstream<Output, Failure>) -> AnyCancellable {
      let t = transform
      return upstream.subscribe(
        Downstream(
          receive: { if let v = t($0) { d.receive(v) } }, complete: d.complete))
    }
  }

  /// `filter`.
  public struct Filter<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure
    let upstream: Upstream
    let isIncluded: (Upstream.Output) -> Bool
    public func subscribe(_ d: Downstream<Output, Failure>) -> AnyCancellable {
      let p = isIncluded
      return upstream.subscribe(Downstream(receive: { if p($0) { d.receive($0) } }, complete: d.complete))
    }
  }

  /// `removeDuplicates`.
  public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure
    let upstream: Upstream
    let same: (Output, Output) -> Bool
    public func subscribe(_ d: Downstream<Output, Failure>) -> AnyCancellable {
      let same = self.same
      let last = Box<Output?>(nil)
      return upstream.subscribe(
        Downstream(
          receive: { v in
            if let l = last.value, same(l, v) { return }
            last.value = v
            d.receive(v)
          }, complete: d.complete))
    }
  }

  /// `receive(on:)`.
  public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure
    let upstream: Upstream
    let scheduler: Context
    public func subscribe(_ d: Downstream<Output, Failure>) -> AnyCancellable {
      let flag = Box(false)
      let scheduler = self.scheduler
      let inner = upstream.subscribe(
        Downstream(
          receive: { v in scheduler.schedule { if !flag.value { d.receive(v) } } },
          complete: { c in scheduler.schedule { if !flag.value { d.complete(c) } } }))
      return AnyCancellable {
        flag.value = true
        inner.cancel()
      }
    }
  }
}

extension Publisher {
  /// Transforms each value.
  public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> {
    Publishers.Map(upstream: self, transform: transform)
  }

  /// Reads a key path of each value.
  public func map<T>(_ keyPath: KeyPath<Output, T>) -> Publishers.Map<Self, T> {
    Publishers.Map(upstream: self, transform: { $0[keyPath: keyPath] })
  }

  /// Transforms each value, dropping `nil`s.
  public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Self, T> {
    Publishers.CompactMap(upstream: self, transform: transform)
  }

  /// Keeps the values that pass `isIncluded`.
  public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Self> {
    Publishers.Filter(upstream: self, isIncluded: isIncluded)
  }

  /// Drops a value equal (by `predicate`) to the one before it.
  public func removeDuplicates(by predicate: @escaping (Output, Output) -> Bool) -> Publishers.RemoveDuplicates<Self> {
    Publishers.RemoveDuplicates(upstream: self, same: predicate)
  }

  /// Delivers each value (and the end) later, on `scheduler`.
  public func receive<S: Scheduler>(on scheduler: S, options: Never? = nil) -> Publishers.ReceiveOn<Self, S> {
    Publishers.ReceiveOn(upstream: self, scheduler: scheduler)
  }

  /// Erases the publisher's type.
  public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> { AnyPublisher(self) }

  /// Subscribes with closures for the values and the end.
  public func sink(
    receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
    receiveValue: @escaping (Output) -> Void
  ) -> AnyCancellable {
    subscribe(Downstream(receive: receiveValue, complete: receiveCompletion))
  }

  /// Writes each value to `keyPath` of `object` (which the subscription retains, as Combine's
  /// does).
  public func assign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root) -> AnyCancellable
  where Failure == Never {
    subscribe(Downstream(receive: { object[keyPath: keyPath] = $0 }))
  }
}

extension Publisher where Output: Equatable {
  /// Drops a value equal to the one before it.
  public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> {
    Publishers.RemoveDuplicates(upstream: self, same: ==)
  }
}

extension Publisher where Failure == Never {
  /// Subscribes with a closure for the values.
  public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
    subscribe(Downstream(receive: receiveValue))
  }

  /// Republishes each value through `published` (`assign(to: &$property)`); the subscription lasts
  /// as long as the property's owner.
  public func assign(to published: inout Published<Output>.Publisher) {
    let storage = published.storage
    storage.assignment = subscribe(Downstream(receive: { [weak storage] in storage?.set($0) }))
  }
}

/// The storage of one `@Published` property.
final class PublishedStorage<Value> {
  var value: Value
  let list = SubscriberList<Value, Never>()
  var assignment: AnyCancellable?
  /// The owner's `objectWillChange`, once something asked for it.
  var owner: ObservableObjectPublisher?

  init(_ value: Value) { self.value = value }

  func set(_ newValue: Value) {
    owner?.send()
    list.send(newValue)  // before the property changes, as Combine's `willSet` publishing
    value = newValue
  }
}

/// A property that publishes each new value (`@Published var status = …`).
@propertyWrapper
public struct Published<Value> {
  let storage: PublishedStorage<Value>

  /// A property starting at `wrappedValue`.
  public init(wrappedValue: Value) { storage = PublishedStorage(wrappedValue) }

  public var wrappedValue: Value {
    get { storage.value }
    nonmutating set { storage.set(newValue) }
  }

  /// `$property`: the publisher of its values, current value first.
  public var projectedValue: Publisher {
    get { Publisher(storage: storage) }
    set {}
  }

  /// The publisher of a `@Published` property.
  public struct Publisher: Combine.Publisher {
    public typealias Output = Value
    public typealias Failure = Never
    let storage: PublishedStorage<Value>

    public func subscribe(_ d: Downstream<Value, Never>) -> AnyCancellable {
      let c = storage.list.add(d)
      d.receive(storage.value)
      return c
    }
  }
}

/// Something that announces changes of its state before they happen.
public protocol ObservableObject: AnyObject {
  /// The publisher of changes.
  associatedtype ObjectWillChangePublisher: Combine.Publisher = ObservableObjectPublisher
  where ObjectWillChangePublisher.Failure == Never
  /// Sends before any `@Published` property of the object changes.
  var objectWillChange: ObjectWillChangePublisher { get }
}

/// The default `objectWillChange`: fires before any `@Published` property changes.
public final class ObservableObjectPublisher: Publisher {
  public typealias Output = Void
  public typealias Failure = Never
  let list = SubscriberList<Void, Never>()

  /// A publisher.
  public init() {}

  public func subscribe(_ d: Downstream<Void, Never>) -> AnyCancellable { list.add(d) }

  /// Announces a change.
  public func send() { list.send(()) }
}

protocol PublishedField {
  var willChange: ObservableObjectPublisher? { get nonmutating set }
}

extension Published: PublishedField {
  var willChange: ObservableObjectPublisher? {
    get { storage.owner }
    nonmutating set { storage.owner = newValue }
  }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
  /// Sends before any of the object's `@Published` properties changes. Found by reflection the
  /// first time it is asked for, as Combine does; an object with no `@Published` property gets a
  /// publisher that never sends.
  public var objectWillChange: ObservableObjectPublisher {
    var fields: [PublishedField] = []
    var mirror: Mirror? = Mirror(reflecting: self)
    while let m = mirror {
      for child in m.children { if let f = child.value as? PublishedField { fields.append(f) } }
      mirror = m.superclassMirror
    }
    if let existing = fields.first?.willChange { return existing }
    let publisher = ObservableObjectPublisher()
    for f in fields { f.willChange = publisher }
    return publisher
  }
}
