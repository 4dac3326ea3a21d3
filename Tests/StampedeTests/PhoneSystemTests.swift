import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import SimKernel

@Suite struct PhoneSystemTests {
  func system(groups: Int = 2) -> PhoneSystem {
    PhoneSystem(
      phones: 10..<12,
      limits: ConversationLimits(
        maximumConversationGroups: groups, maximumConversationsPerConversationGroup: 1, supportsVideo: true,
        actionTimeout: .seconds(30)))
  }

  @Test func reportsThrowOnADuplicateUUIDAndBeyondTheGroupLimit() throws {
    let os = system(groups: 2)
    os.handPush(10, call: 4)
    try os.report(10, uuid: 1, sdkCall: 0)
    #expect(os.conversation(10, 1)?.call == 5)  // bound to the pushed call
    #expect(throws: ConversationError.duplicateUUID) { try os.report(10, uuid: 1, sdkCall: 0) }
    try os.report(10, uuid: 2, sdkCall: 8)
    #expect(os.conversation(10, 2)?.call == 8)  // no push pending: bound to the SDK's call
    #expect(throws: ConversationError.limitExceeded) { try os.report(10, uuid: 3, sdkCall: 0) }
    #expect(os.activeConversations(10) == 2 && os.activeConversations(11) == 0)
    #expect(os.unreportedPushes(10) == 0)
    #expect(
      os.events.compactMap { e -> ConversationError?? in
        if case .reported(_, _, let error, _) = e { return error } else { return nil }
      } == [nil, .duplicateUUID, nil, .limitExceeded])
  }

  @Test func aPhonesConversationsAreItsOwnInUUIDOrder() throws {
    let os = system(groups: 4)
    // Reported out of order on one phone, with another phone's in between.
    try os.report(10, uuid: 7, sdkCall: 3)
    try os.report(11, uuid: 5, sdkCall: 3)
    try os.report(10, uuid: 2, sdkCall: 3)
    try os.report(10, uuid: 9, sdkCall: 4)
    #expect(os.activeUUIDs(of: 10) == [2, 7, 9])
    #expect(os.activeUUIDs(of: 11) == [5])
    #expect(os.conversations(of: 10, call: 2).map(\.uuid) == [2, 7], "bound to call 2 (ID + 1 = 3)")
    #expect(os.conversations(of: 11, call: 2).map(\.uuid) == [5])
    #expect(os.conversations(of: 10, call: 3).map(\.uuid) == [9])
    os.endConversation(10, 7)
    #expect(os.activeUUIDs(of: 10) == [2, 9] && os.activeConversations(10) == 2)
    os.setApp(10, .killed)
    #expect(os.activeUUIDs(of: 10).isEmpty && os.conversations(of: 10, call: 2).isEmpty)
    #expect(os.activeUUIDs(of: 11) == [5], "the other phone's stay")
    // Drained through a buffer: every event once, in order, and the list starts anew.
    var taken: [PhoneSystemEvent] = []
    os.takeEvents(into: &taken)
    #expect(taken.count == 7 && !os.hasEvents)
    os.handPush(11, call: 8)
    try os.report(11, uuid: 6, sdkCall: 0)
    #expect(os.takeEvents().count == 1)
  }

  @Test func duplicatesAreFoundInShortAndLongLists() {
    #expect(![UInt32]().hasDuplicates && ![UInt32(4)].hasDuplicates && ![UInt32(1), 2, 3].hasDuplicates)
    #expect([UInt32(1), 2, 1].hasDuplicates && [UInt32(3), 3].hasDuplicates)
    let long = (0..<40).map { UInt32($0) }
    #expect(!long.hasDuplicates && (long + [39]).hasDuplicates && ([0] + long).hasDuplicates)
  }

  @Test func eachActionSettlesOnceAndLateOrRepeatedCompletionsAreTold() throws {
    let os = system()
    try os.report(10, uuid: 1, sdkCall: 3)
    let join = os.makeAction(10, uuid: 1, kind: .join)
    #expect(os.settle(action: join.id, fulfilled: true) == .onTime(phone: 10, uuid: 1, kind: .join))
    #expect(os.conversation(10, 1)?.connected == true)
    #expect(os.settle(action: join.id, fulfilled: false) == .repeated)
    #expect(os.settle(action: 99, fulfilled: true) == .unknown)
    let end = os.makeAction(10, uuid: 1, kind: .end)
    os.now = .zero + .seconds(31)
    #expect(os.timeOut(action: end.id) == end)
    #expect(os.timeOut(action: end.id) == nil)  // once
    #expect(os.activeConversations(10) == 0)  // the system gave up and ended it
    #expect(os.settle(action: end.id, fulfilled: true) == .afterTimeout)
    #expect(os.settle(action: end.id, fulfilled: true) == .repeated)
  }

  @Test func aFailedJoinOrAFulfilledEndEndsTheConversationAndUnsupportedOnesDoNot() throws {
    let os = system()
    try os.report(10, uuid: 1, sdkCall: 1)
    try os.report(11, uuid: 2, sdkCall: 2)
    _ = os.settle(action: os.makeAction(10, uuid: 1, kind: .merge).id, fulfilled: false)
    #expect(os.activeConversations(10) == 1)
    _ = os.settle(action: os.makeAction(10, uuid: 1, kind: .join).id, fulfilled: false)
    _ = os.settle(action: os.makeAction(11, uuid: 2, kind: .end).id, fulfilled: true)
    #expect(os.activeConversations(10) == 0 && os.activeConversations(11) == 0)
  }

  @Test func killingTheAppEndsItsConversationsAndForgivesItsPendingPushes() throws {
    let os = system()
    os.handPush(10, call: 0)
    try os.report(10, uuid: 1, sdkCall: 0)
    os.handPush(10, call: 1)
    #expect(os.unreportedPushes(10) == 1)
    os.setApp(10, .killed)
    #expect(os.activeConversations(10) == 0 && os.unreportedPushes(10) == 0)
    #expect(!os.isRunning(10) && !os.hasRegistry(10))
    // Killing and launching each start a new generation: nothing the old process started reaches
    // the new one.
    let g = os.launch(10, foreground: false)
    #expect(g == 2 && os.isRunning(10) && os.isAwake(10))
  }

  @Test func killingAnAppDropsItsActionsAndNoOtherPhones() throws {
    let os = system()
    try os.report(10, uuid: 1, sdkCall: 1)
    try os.report(11, uuid: 2, sdkCall: 2)
    let mine = os.makeAction(10, uuid: 1, kind: .join)
    let theirs = os.makeAction(11, uuid: 2, kind: .join)
    let settled = os.makeAction(10, uuid: 1, kind: .end)
    #expect(os.settle(action: settled.id, fulfilled: false) == .onTime(phone: 10, uuid: 1, kind: .end))
    os.setApp(11, .killed)
    #expect(os.settle(action: theirs.id, fulfilled: true) == .repeated, "dropped with its process")
    os.setApp(10, .killed)
    #expect(os.settle(action: mine.id, fulfilled: true) == .repeated)
    // A relaunched app's new actions are kept until settled.
    _ = os.launch(10, foreground: true)
    try os.report(10, uuid: 3, sdkCall: 1)
    let again = os.makeAction(10, uuid: 3, kind: .join)
    os.setApp(11, .killed)
    #expect(os.settle(action: again.id, fulfilled: true) == .onTime(phone: 10, uuid: 3, kind: .join))
  }

  @Test func missedReportsSuppressPushesAfterTheConfiguredCount() {
    let os = system()
    os.handPush(10, call: 0)
    #expect(!os.killForMissedReport(10, suppressAfter: 2))
    os.handPush(10, call: 1)
    #expect(os.killForMissedReport(10, suppressAfter: 2))
    #expect(os.isSuppressed(10) && os.appState(10) == .killed)
  }

  @Test func theBackendRoutesByCertificateEnvironmentAndToken() {
    var b = PushBackend(
      certificates: [
        PushCertificate(id: 1, environment: .production, type: .voip),
        PushCertificate(id: 2, environment: .development, type: .voip),
        PushCertificate(id: 3, environment: .production, type: .apns),
      ], appEnvironment: .production, phones: 0..<3)
    #expect(b.route(to: 0, phoneToken: 1) == .lost(.noToken))
    let zero = b.register(user: 0, certificateID: 0, token: 1)
    let one = b.register(user: 0, certificateID: 1, token: 1)
    #expect(!zero && one)
    #expect(b.route(to: 0, phoneToken: 1) == .voip)
    #expect(b.route(to: 0, phoneToken: 2) == .lost(.tokenInvalidated))
    b.register(user: 1, certificateID: 2, token: 1)
    #expect(b.route(to: 1, phoneToken: 1) == .lost(.environmentMismatch))
    b.register(user: 2, certificateID: 3, token: 1)
    #expect(b.route(to: 2, phoneToken: 1) == .apnsAlert)
    // User 3 has no phone: its upload is kept all the same (an app may upload from any device).
    b.register(user: 3, certificateID: 9, token: 1)
    #expect(b.registeredCertificate(of: 3) == 9 && b.registeredToken(of: 3) == 1)
    #expect(b.route(to: 3, phoneToken: 1) == .lost(.unknownCertificate))
    #expect(b.registeredCertificate(of: 4) == 0)
  }

  @Test func tooManyConversationsAreCaughtAndALimitKeptIsNot() {
    var c = Checker(seats: SeatService(rooms: [], userCount: 0))
    c.observeConversationCount(user: 10, active: 2, limit: 2, at: .zero)
    #expect(c.log.total == 0)
    c.observeConversationCount(user: 10, active: 3, limit: 2, at: .zero)
    #expect(c.log.count("conversation.within-limits") == 1)
    #expect(c.log.first(.conversationLimits)?.entities == ["user:10"])
  }
}
