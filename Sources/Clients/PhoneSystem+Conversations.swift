import LiveStack
import SimKernel

/// The phone system's conversations beyond reporting: each phone's list, groups and merges,
/// outgoing conversations the app starts, and ends.
extension PhoneSystem {
  /// The UUIDs of `phone`'s active conversations, in order.
  public func activeUUIDs(of phone: UInt32) -> [UInt32] {
    uuidsByPhone[index(phone)]
  }
  /// The active conversations of `phone` bound to call `call`, by UUID.
  public func conversations(of phone: UInt32, call: UInt32) -> [Conversation] {
    let uuids = uuidsByPhone[index(phone)]
    guard !uuids.isEmpty else { return [] }
    let base = UInt64(phone) << 32
    return uuids.compactMap { conversations[base | UInt64($0)] }.filter { $0.call == call + 1 }
  }

  /// Files `conversation` as active (its phone's count and UUID list with it).
  func add(_ conversation: Conversation) {
    let phone = conversation.phone
    conversations[UInt64(phone) << 32 | UInt64(conversation.uuid)] = conversation
    let i = index(phone)
    cells[i].activeConversations += 1
    let at = uuidsByPhone[i].firstIndex { $0 > conversation.uuid } ?? uuidsByPhone[i].endIndex
    uuidsByPhone[i].insert(conversation.uuid, at: at)
  }

  /// Ends every conversation of `phone` (its app died).
  func endAll(_ phone: UInt32) {
    guard cells[index(phone)].activeConversations > 0 else { return }
    for uuid in activeUUIDs(of: phone) { endConversation(phone, uuid) }
  }

  /// Removes conversation `uuid` of `phone` from the active ones; returns it if it was.
  func remove(_ phone: UInt32, _ uuid: UInt32) -> Conversation? {
    guard let c = conversations.removeValue(forKey: UInt64(phone) << 32 | UInt64(uuid)) else { return nil }
    let i = index(phone)
    cells[i].activeConversations -= 1
    uuidsByPhone[i].removeEvery(uuid)
    // A phone without conversations keeps no storage (most phones are idle most of the time).
    if uuidsByPhone[i].isEmpty { uuidsByPhone[i] = [] }
    return c
  }

  /// How many conversation groups `phone` shows (what `maximumConversationGroups` limits).
  public func groups(_ phone: UInt32) -> Int {
    let c = cells[index(phone)]
    return Int(c.activeConversations) - Int(c.merged)
  }

  /// Two conversations of `phone` in different groups that a Merge could join within
  /// `maximumConversationsPerConversationGroup` (the first and the next one that fits), if any.
  public func mergeCandidates(_ phone: UInt32) -> (UInt32, UInt32)? {
    guard groups(phone) >= 2, limits.maximumConversationsPerConversationGroup >= 2 else { return nil }
    let base = UInt64(phone) << 32
    let mine = activeUUIDs(of: phone).map { conversations[base | UInt64($0)]! }
    var size: [UInt32: Int] = [:]
    for c in mine { size[c.group, default: 0] += 1 }
    let heads = mine.filter { $0.group == $0.uuid }.map(\.uuid)
    for (i, a) in heads.enumerated() {
      for b in heads[(i + 1)...] where size[a]! + size[b]! <= limits.maximumConversationsPerConversationGroup {
        return (a, b)
      }
    }
    return nil
  }

  /// Starts outgoing conversation `uuid` for the app (`perform` with a Start action): it counts
  /// against the limits like an incoming one, and is bound to `sdkCall` (the call the app's SDK is
  /// in, as ID + 1; 0 until the Start is fulfilled in one). Answers no push. The Start action it
  /// returns goes to the app's delegate.
  func startOutgoing(_ phone: UInt32, uuid: UInt32, sdkCall: UInt32) throws(ConversationError) -> ConversationAction {
    let i = index(phone)
    let key = UInt64(phone) << 32 | UInt64(uuid)
    if conversations[key] != nil {
      events.append(
        .startRequested(
          phone: phone, uuid: uuid, action: 0, error: .duplicateUUID, active: cells[i].activeConversations))
      throw .duplicateUUID
    }
    if groups(phone) + Int(cells[i].foreignCalls) >= limits.maximumConversationGroups {
      events.append(
        .startRequested(phone: phone, uuid: uuid, action: 0, error: .limitExceeded, active: UInt8(groups(phone))))
      throw .limitExceeded
    }
    add(
      Conversation(
        phone: phone, uuid: uuid, call: sdkCall, connected: false, reportedAt: now, outgoing: true, group: uuid))
    let action = makeAction(phone, uuid: uuid, kind: .start)
    events.append(
      .startRequested(phone: phone, uuid: uuid, action: action.id, error: nil, active: UInt8(groups(phone))))
    return action
  }

  func isOutgoing(_ phone: UInt32, _ uuid: UInt32) -> Bool {
    conversations[UInt64(phone) << 32 | UInt64(uuid)]?.outgoing == true
  }

  /// An outgoing conversation not yet bound to a call is bound to `sdkCall` (ID + 1), the call its
  /// app's SDK is in as the app fulfils its Start.
  func bindOutgoing(_ phone: UInt32, _ uuid: UInt32, sdkCall: UInt32) {
    let key = UInt64(phone) << 32 | UInt64(uuid)
    guard sdkCall != 0, let c = conversations[key], c.outgoing, c.call == 0 else { return }
    conversations[key]!.call = sdkCall
  }

  /// The app reported conversation `uuid` connected: the system UI shows it in progress (a tap can
  /// no longer answer or decline it).
  func markConnected(_ phone: UInt32, _ uuid: UInt32) {
    conversations[UInt64(phone) << 32 | UInt64(uuid)]?.connected = true
  }

  func endConversation(_ phone: UInt32, _ uuid: UInt32, reason: ConversationEndReason? = nil) {
    guard let c = remove(phone, uuid) else { return }
    let i = index(phone)
    if cells[i].merged > 0 {
      // A merged group loses one: a member leaving shrinks it; its first leaving hands its name on.
      let base = UInt64(phone) << 32
      let members = activeUUIDs(of: phone).filter { conversations[base | UInt64($0)]!.group == c.group }
      if !members.isEmpty {
        cells[i].merged -= 1
        if c.group == uuid {
          for m in members { conversations[UInt64(phone) << 32 | UInt64(m)]!.group = members[0] }
        }
      }
    }
    events.append(.ended(phone: phone, uuid: uuid, call: c.call, reason: reason))
  }

  /// A fulfilled Merge joins `other`'s group to `uuid`'s, if both still stand apart and the merged
  /// group stays within `maximumConversationsPerConversationGroup`.
  func merge(_ phone: UInt32, _ uuid: UInt32, with other: UInt32) {
    let base = UInt64(phone) << 32
    guard let a = conversations[base | UInt64(uuid)], let b = conversations[base | UInt64(other)], a.group != b.group
    else { return }
    let mine = activeUUIDs(of: phone)
    let joining = mine.filter { conversations[base | UInt64($0)]!.group == b.group }
    let staying = mine.filter { conversations[base | UInt64($0)]!.group == a.group }.count
    guard staying + joining.count <= limits.maximumConversationsPerConversationGroup else { return }
    for m in joining { conversations[base | UInt64(m)]!.group = a.group }
    cells[index(phone)].merged += 1
  }
}
