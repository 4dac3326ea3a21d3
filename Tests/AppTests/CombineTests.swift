import Combine
import Testing

/// The Combine subset behaves as Combine does where view models can tell.
@Suite struct CombineTests {
  @Test func twoSinksOnOnePublisherEachReceiveEveryValue() {
    let subject = PassthroughSubject<Int, Never>()
    var a: [Int] = []
    var b: [Int] = []
    let c1 = subject.sink { a.append($0) }
    let c2 = subject.sink { b.append($0) }
    subject.send(1)
    subject.send(2)
    #expect(a == [1, 2])
    #expect(b == [1, 2])
    _ = (c1, c2)
  }

  @Test func droppingTheCancellableEndsTheSubscription() {
    let subject = PassthroughSubject<Int, Never>()
    var seen: [Int] = []
    var cancellable: AnyCancellable? = subject.sink { seen.append($0) }
    subject.send(1)
    #expect(subject.subscriberCount == 1)
    cancellable = nil
    subject.send(2)
    #expect(seen == [1])
    #expect(subject.subscriberCount == 0)
    _ = cancellable
  }

  @Test func aCancellableKeepsNoSubjectAliveAndOutlivesItsSubjectHarmlessly() {
    var subject: PassthroughSubject<Int, Never>? = PassthroughSubject()
    weak var gone = subject
    var seen: [Int] = []
    let cancellable = subject!.sink { seen.append($0) }
    subject!.send(1)
    subject = nil
    #expect(gone == nil, "the subscription does not keep its subject alive")
    cancellable.cancel()
    cancellable.cancel()
    #expect(seen == [1])
  }

  @Test func anUnstoredSinkHearsNothing() {
    let subject = PassthroughSubject<Int, Never>()
    var seen: [Int] = []
    _ = subject.sink { seen.append($0) }
    subject.send(1)
    #expect(seen.isEmpty)
  }

  @Test func storeInASetKeepsEachSubscription() {
    let subject = PassthroughSubject<Int, Never>()
    var cancellables = Set<AnyCancellable>()
    var seen = 0
    subject.sink { _ in seen += 1 }.store(in: &cancellables)
    subject.sink { _ in seen += 10 }.store(in: &cancellables)
    subject.send(0)
    #expect(seen == 11)
    #expect(cancellables.count == 2)
  }

  @Test func operatorsMapFilterRemoveDuplicatesCompactMap() {
    let subject = PassthroughSubject<Int, Never>()
    var out: [String] = []
    let c = subject.filter { $0 >= 0 }.removeDuplicates().compactMap { $0 == 3 ? nil : $0 }.map { "v\($0)" }
      .sink { out.append($0) }
    for v in [1, 1, -1, 2, 2, 3, 4, 4] { subject.send(v) }
    #expect(out == ["v1", "v2", "v4"])
    _ = c
  }

  @Test func currentValueSubjectGivesItsValueFirst() {
    let subject = CurrentValueSubject<Int, Never>(7)
    var seen: [Int] = []
    let c = subject.sink { seen.append($0) }
    subject.value = 8
    subject.send(9)
    #expect(seen == [7, 8, 9])
    #expect(subject.value == 9)
    _ = c
  }

  final class Model: ObservableObject {
    @Published var status = 0
    @Published var name = "a"
  }

  @Test func publishedSendsTheNewValueBeforeThePropertyChanges() {
    let model = Model()
    var seen: [(sent: Int, stored: Int)] = []
    let c = model.$status.sink { [unowned model] v in seen.append((v, model.status)) }
    model.status = 5
    #expect(seen.map(\.sent) == [0, 5])
    // willSet semantics: while the new value is published, the property still holds the old one.
    #expect(seen.map(\.stored) == [0, 0])
    #expect(model.status == 5)
    _ = c
  }

  @Test func objectWillChangeFiresForEveryPublishedProperty() {
    let model = Model()
    var changes = 0
    let c = model.objectWillChange.sink { changes += 1 }
    model.status = 1
    model.name = "b"
    #expect(changes == 2)
    _ = c
  }

  @Test func assignToPublishedRepublishesAsLongAsTheOwnerLives() {
    let source = PassthroughSubject<Int, Never>()
    let model = Model()
    source.assign(to: &model.$status)
    source.send(3)
    #expect(model.status == 3)
    #expect(source.subscriberCount == 1)
  }

  @Test func completionReachesEverySubscriberOnceAndEndsTheStream() {
    let subject = PassthroughSubject<Int, Never>()
    var finished = 0
    var values: [Int] = []
    let c = subject.sink(receiveCompletion: { _ in finished += 1 }, receiveValue: { values.append($0) })
    subject.send(1)
    subject.send(completion: .finished)
    subject.send(2)
    subject.send(completion: .finished)
    #expect(values == [1])
    #expect(finished == 1)
    _ = c
  }
}
