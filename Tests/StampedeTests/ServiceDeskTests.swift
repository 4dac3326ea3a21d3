import Testing

@testable import LiveStack
@testable import SimKernel

/// The server's services as queues, through the desk's narrow interface the world calls.
@Suite struct ServiceDeskTests {
  func settings(workers: Int, queue: Int?, perUser: Int? = nil) -> ServiceSettings {
    ServiceSettings(
      workers: workers, serviceTime: .constant(250_000_000), queueLimit: queue, perUser: perUser, perRoom: nil,
      perApp: nil)
  }

  @Test func aServiceAdmitsQueuesRefusesAndHandsOutTheNextInOrder() {
    // Login has one worker and a queue of one; seats, calls and push have no capacity.
    var desk = ServiceDesk(
      settings: [.unlimited, settings(workers: 1, queue: 1), .unlimited], users: 10, rooms: 1)
    #expect(desk.hasCapacity && desk.isLimited(1) && !desk.isLimited(0) && !desk.isLimited(2) && !desk.isLimited(3))
    var g = SplitMix64(seed: 7)
    let t0 = SimInstant(nanoseconds: 0)
    let r1 = desk.arrive(1, slot: 10, user: 1, room: 0, now: t0, service: &g)
    #expect(r1 == .serve(for: .milliseconds(250)))
    let r2 = desk.arrive(1, slot: 11, user: 2, room: 0, now: t0, service: &g)
    #expect(r2 == .queued)
    // The queue is full: the generic error, as the SDK reports a busy server.
    let r3 = desk.arrive(1, slot: 12, user: 3, room: 0, now: t0, service: &g)
    #expect(r3 == .refused(.failed))
    #expect(desk.queues[1].refused[ServiceRefusal.allCases.firstIndex(of: .queueFull)!] == 1)
    let r4 = desk.finished(1, now: SimInstant(nanoseconds: 250_000_000))
    #expect(r4 == 11)
    let r5 = desk.finished(1, now: SimInstant(nanoseconds: 500_000_000))
    #expect(r5 == nil)
    #expect(desk.queues[1].served == 2)
  }

  @Test func aRateLimitRefusesWithTheFrequencyLimitAndAGiveUpLeavesTheQueue() {
    var desk = ServiceDesk(settings: [settings(workers: 1, queue: nil, perUser: 1)], users: 10, rooms: 1)
    var g = SplitMix64(seed: 1)
    let t0 = SimInstant(nanoseconds: 0)
    let r6 = desk.arrive(0, slot: 1, user: 4, room: 0, now: t0, service: &g)
    #expect(r6 == .serve(for: .milliseconds(250)))
    let r7 = desk.arrive(0, slot: 2, user: 4, room: 0, now: t0, service: &g)
    #expect(r7 == .refused(.frequencyLimited))
    let r8 = desk.arrive(0, slot: 3, user: 5, room: 0, now: t0, service: &g)
    #expect(r8 == .queued)
    let r9 = desk.cancel(0, slot: 3, now: SimInstant(nanoseconds: 100))
    #expect(r9)
    let r10 = desk.cancel(0, slot: 3, now: SimInstant(nanoseconds: 200))
    #expect(!r10)
    let r11 = desk.finished(0, now: SimInstant(nanoseconds: 250_000_000))
    #expect(r11 == nil)
  }

  @Test func pushSlotsAreReusedOnceSentOrTurnedAway() {
    var desk = ServiceDesk(
      settings: [.unlimited, .unlimited, .unlimited, settings(workers: 1, queue: 1)], users: 10, rooms: 1)
    var g = SplitMix64(seed: 3)
    let t0 = SimInstant(nanoseconds: 0)
    let a = desk.arrivePush(user: 1, call: 100, room: 0, now: t0, service: &g)
    let b = desk.arrivePush(user: 2, call: 101, room: 0, now: t0, service: &g)
    let c = desk.arrivePush(user: 3, call: 102, room: 0, now: t0, service: &g)
    #expect(a.slot == 0 && a.outcome == .serve(for: .milliseconds(250)))
    #expect(b.slot == 1 && b.outcome == .queued)
    #expect(c.slot == 2 && c.outcome == .refused(.failed))
    // The refused push's slot is free again: the next push takes it.
    let d = desk.arrivePush(user: 4, call: 103, room: 0, now: SimInstant(nanoseconds: 1), service: &g)
    #expect(d.slot == 2 && d.outcome == .refused(.failed))
    let sent = desk.takePush(a.slot)
    #expect(sent.user == 1 && sent.call == 100)
    let r12 = desk.finished(3, now: SimInstant(nanoseconds: 250_000_000))
    #expect(r12 == b.slot)
    #expect(desk.pushes[Int(b.slot)].user == 2 && desk.pushes[Int(b.slot)].call == 101)
    let e = desk.arrivePush(user: 5, call: 104, room: 0, now: SimInstant(nanoseconds: 250_000_000), service: &g)
    #expect(e.slot == 0 && e.outcome == .queued)
  }

  /// A request's timeout finds it by its place in the queue, as a search by slot finds it: the
  /// same requests leave, with the same figures, across the queue's compaction and the wrap of
  /// places at 2^30, and a request that was served or gave up already is never touched again.
  @Test func aTimeoutFindsItsRequestByPlaceAsASearchBySlotDoes() {
    let settings = ServiceSettings(
      workers: 1, serviceTime: .constant(1), queueLimit: nil, perUser: nil, perRoom: nil, perApp: nil)
    var byPlace = ServiceQueue(settings: settings, users: 1, rooms: 1)
    byPlace.removed = (1 << 30) - 3_000  // places wrap after the first few thousand requests
    var bySlot = byPlace
    var random = SplitMix64(seed: 11)
    var free = Array((0..<UInt32(20_000)).reversed())
    var timers: [(slot: UInt32, place: UInt32)] = []  // every queued request's timeout, pending
    var inQueue = Set<UInt32>()
    var busy = false
    var outcomes = [0, 0, 0]  // timed out, already gone, served
    for step in 0..<60_000 {
      let t = SimInstant(nanoseconds: Int64(step))
      switch random.next(below: 10) {
      case 0..<(step < 30_000 ? 5 : 2):
        let slot = free.removeLast()
        let a = byPlace.arrive(slot: slot, user: 0, room: 0, now: t)
        #expect(a == bySlot.arrive(slot: slot, user: 0, room: 0, now: t))
        if a == .queued {
          timers.append((slot, byPlace.lastQueuedPlace))
          inQueue.insert(slot)
        } else {
          busy = true
          free.append(slot)
        }
      case 5..<7:
        guard !timers.isEmpty else { continue }
        let timer = timers.remove(at: Int(random.next(below: UInt64(timers.count))))
        let left = byPlace.cancel(place: timer.place, slot: timer.slot, now: t)
        #expect(left == bySlot.cancel(slot: timer.slot, now: t))
        #expect(left == inQueue.contains(timer.slot))
        outcomes[left ? 0 : 1] += 1
        if left { inQueue.remove(timer.slot) }
        if !inQueue.contains(timer.slot) { free.append(timer.slot) }
      default:
        guard busy else { continue }
        let next = byPlace.finished(now: t)
        #expect(next == bySlot.finished(now: t))
        if let next {
          inQueue.remove(next)
          outcomes[2] += 1
        } else {
          busy = false
        }
      }
    }
    #expect(outcomes.allSatisfy { $0 > 1_000 }, "every path taken: \(outcomes)")
    #expect(byPlace.removed > 1 << 30, "places wrapped")
    #expect(byPlace.queued.level == bySlot.queued.level && byPlace.queued.level == inQueue.count)
    #expect(byPlace.refused == bySlot.refused && byPlace.served == bySlot.served)
  }
}
