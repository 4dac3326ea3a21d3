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

  init(app: PhoneApp<Objects>, settings: PhoneSettings, phones: Range<UInt32>, harness: Harness) {
    self.app = app
    self.settings = settings
    self.phones = phones
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
    host.releaseObjects(of: user) { setObjects(nil, of: user) }
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
    case .started:
      schedule(.hangUp, after: harness.sample(settings.talkTime), user: user, host: host)
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
      let group = harness.chance(settings.groupProbability)
      let count =
        group ? min(phones.count - 1, 2 + Int(harness.random.next(below: UInt64(settings.maxGroupCallees - 1)))) : 1
      var callees: [String] = []
      while callees.count < count {
        let u = phones.lowerBound + UInt32(harness.random.next(below: UInt64(phones.count)))
        let id = VirtualIDs.userID(u)
        if u != user && !callees.contains(id) { callees.append(id) }
      }
      let video = harness.chance(settings.videoProbability)
      onMainActor { dial(o, callees, video) }
      if let p = settings.patience {
        schedule(.callerGiveUp, after: harness.sample(p), user: user, arg: epoch[Int(user)], host: host)
      }
    case .answer:
      guard state == .waiting else { return }
      if harness.chance(settings.answerProbability) {
        onMainActor { app.answer?(o) }
      } else {
        onMainActor { app.decline?(o) }
      }
    case .hangUp:
      if state == .accept { onMainActor { app.hangUp?(o) } }
    case .callerGiveUp:
      if state == .waiting, arg == epoch[Int(user)] { onMainActor { app.hangUp?(o) } }
    default: break
    }
  }

  override func settle(_ user: UInt32, host: AppHost) {
    guard let box = objects(of: user), let probe = app.callScreen else { return }
    host.runtime.ui.setCallScreen(user, shown: onMainActor { probe(box.value) })
  }
}
