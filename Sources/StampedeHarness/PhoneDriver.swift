import AtomicXCore
import Clients
import Combine
import LiveCommunicationKit
import LiveStack
import PushKit
import SimKernel
import VirtualPlatform

/// Drives a ``PhoneApp``.
final class PhoneDriver<Objects>: Driver<Objects> {
  let app: PhoneApp<Objects>
  let settings: PhoneSettings
  let phones: Range<UInt32>
  /// Whether the phones dial viewers too (`calls.liveCallees`): when the viewers are the
  /// built-in clients, which take calls.
  let dialsViewers: Bool
  /// Per phone: the users of the group call it placed last (none for a one-to-one call), whom an
  /// "add people" tap leaves out. Kept only when the app can invite.
  var groupCallees: [UInt32: [UInt32]] = [:]

  init(
    app: PhoneApp<Objects>, settings: PhoneSettings, phones: Range<UInt32>, dialsViewers: Bool, harness: Harness
  ) {
    self.app = app
    self.settings = settings
    self.phones = phones
    self.dialsViewers = dialsViewers && settings.liveCallees != .zero
    super.init(harness: harness)
  }

  override func start(_ c: inout Client) { launch(&c) }

  /// A fresh process: the previous one's objects and SDK instances are gone.
  func launch(_ c: inout Client) {
    let host = harness.host(for: c.runtime)
    let user = c.user
    precondition(Int(user) < harness.userCount, "a user beyond the run's")
    harness.settlers[Int(user)] = Unmanaged.passUnretained(self)
    // The previous process's objects, then its SDK instances, go as that process's code (a
    // `deinit` that removes an observer finds its own center); what they start never runs.
    host.releaseObjects(of: user, holding: objects(of: user)) { setObjects(nil, of: user) }
    host.forgetSingletons(of: user)
    epoch[Int(user)] &+= 1
    let e = epoch[Int(user)]
    host.run(as: user) {
      setObjects(onMainActor { app.launch(context(user, role: .phone)) }, of: user)
      if app.dial != nil { schedule(.dial, after: harness.sample(settings.dialEvery), user: user, arg: e, host: host) }
    }
  }

  var foreground: (UInt32, AppHost) -> Bool = { user, host in
    (host.runtime.phoneSystem?.appState(user) ?? .foreground) == .foreground
  }

  override func heard(_ callback: ClientCallback, user: UInt32, host: AppHost) {
    guard case .callEvent(let e) = callback else { return }
    switch e {
    case .received where foreground(user, host):
      schedule(.answer, after: harness.sample(settings.answerAfter), user: user, host: host)
    case .started(_, let call):
      schedule(.hangUp, after: harness.sample(settings.talkTime), user: user, host: host)
      // The caller of a group call adds someone now and then while it runs.
      if app.invite != nil, groupCallees[user] != nil, host.runtime.clients[Int(user)].call == call + 1,
        harness.chance(settings.inviteProbability)
      {
        schedule(.inviteToCall, after: harness.sample(settings.answerAfter), user: user, arg: call, host: host)
      }
    case .ended where app.invite != nil && host.runtime.clients[Int(user)].call == 0:
      groupCallees[user] = nil
    default: break
    }
  }

  override func tap(_ tap: Tap, arg: UInt32, user: UInt32, host: AppHost) {
    guard let box = objects(of: user) else { return }
    let o = box.value
    let state = host.runtime.clients[Int(user)].callState
    switch tap {
    case .dial:
      guard arg == epoch[Int(user)] else { return }
      schedule(.dial, after: harness.sample(settings.dialEvery), user: user, arg: arg, host: host)
      guard state == .none, foreground(user, host), phones.count > 1, let dial = app.dial else { return }
      // A tap to end an earlier call no longer speaks for the call dialled now.
      host.runtime.endTapped[user] = nil
      let video: Bool
      if dialsViewers && harness.chance(settings.liveCallees), let viewer = randomViewer(host) {
        // A viewer of a live room (`calls.liveCallees`), as the built-in phones call them.
        video = harness.chance(settings.videoProbability)
        if app.invite != nil { groupCallees[user] = nil }
        onMainActor { dial(o, [VirtualIDs.userID(viewer)], video) }
        if let p = settings.patience {
          schedule(.callerGiveUp, after: harness.sample(p), user: user, arg: epoch[Int(user)], host: host)
        }
        return
      }
      let group = harness.chance(settings.groupProbability)
      let count =
        group ? min(phones.count - 1, 2 + Int(harness.random.next(below: UInt64(settings.maxGroupCallees - 1)))) : 1
      var callees: [String] = []
      while callees.count < count {
        let u = phones.lowerBound + UInt32(harness.random.next(below: UInt64(phones.count)))
        let id = VirtualIDs.userID(u)
        if u != user && !callees.contains(id) { callees.append(id) }
      }
      video = harness.chance(settings.videoProbability)
      if app.invite != nil { groupCallees[user] = count > 1 ? callees.compactMap(VirtualIDs.user) : nil }
      onMainActor { dial(o, callees, video) }
      if let p = settings.patience {
        schedule(.callerGiveUp, after: harness.sample(p), user: user, arg: epoch[Int(user)], host: host)
      }
    case .answer:
      guard state == .waiting else { return }
      if harness.chance(settings.answerProbability) {
        onMainActor { app.answer?(o) }
      } else {
        host.runtime.noteEndTap(user)
        onMainActor { app.decline?(o) }
      }
    case .hangUp:
      guard state == .accept else { return }
      host.runtime.noteEndTap(user)
      onMainActor { app.hangUp?(o) }
    case .callerGiveUp:
      guard state == .waiting, arg == epoch[Int(user)] else { return }
      host.runtime.noteEndTap(user)
      onMainActor { app.hangUp?(o) }
    case .inviteToCall:
      // Someone not in the call yet, if the call this phone placed still runs.
      guard state == .accept, host.runtime.clients[Int(user)].call == arg + 1, let invite = app.invite,
        let inCall = groupCallees[user], phones.count > inCall.count + 1
      else { return }
      var u: UInt32
      repeat {
        u = phones.lowerBound + UInt32(harness.random.next(below: UInt64(phones.count)))
      } while u == user
        || inCall.contains(u)
      groupCallees[user] = inCall + [u]
      let id = VirtualIDs.userID(u)
      onMainActor { invite(o, [id]) }
    default: break
    }
  }

  /// A viewer of a live room, drawn as the built-in phones draw one (a room, then one of its
  /// viewers); `nil` when there are none.
  func randomViewer(_ host: AppHost) -> UInt32? {
    let rooms = host.runtime.audienceRange
    guard !rooms.isEmpty else { return nil }
    let range = rooms[Int(harness.random.next(below: UInt64(rooms.count)))]
    guard !range.isEmpty else { return nil }
    return range.lowerBound + UInt32(harness.random.next(below: UInt64(range.count)))
  }

  override func settle(_ user: UInt32, host: AppHost) {
    guard let box = objects(of: user), let probe = app.callScreen else { return }
    host.runtime.ui.setCallScreen(user, shown: onMainActor { probe(box.value) })
  }
}
