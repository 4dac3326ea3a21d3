import Foundation
import Metrics
import Testing

@testable import Clients
@testable import LiveStack
@testable import Oracles
@testable import Profiles
@testable import Scenario
@testable import SimKernel

/// A client whose every reaction a test scripts; it logs what it hears.
final class ScriptedClient: ClientBehavior {
  var log: [String] = []
  var onApply: ((inout Client) -> Void)?
  var onTimer: ((UInt32, inout Client) -> Void)?
  var onGuest: ((GuestEvent, inout Client) -> Void)?
  var onHost: ((HostEvent, inout Client) -> Void)?
  var onSeat: ((SeatChangeEvent, inout Client) -> Void)?
  var onAppState: ((Bool, inout Client) -> Void)?
  var logsIn = true
  /// Whether its status is its UI, judged by the UI oracles as a built-in viewer's is.
  var uiStatus = false
  var statusIsUI: Bool { uiStatus }
  /// The SDK streams it subscribes to as it starts (every one but calls, by default).
  var subscribes: Subscriptions = [.guestEvents, .hostEvents, .seatList, .loginEvents, .liveEvents]

  func start(_ client: inout Client) {
    guard logsIn else { return }
    client.runtime.clients[Int(client.user)].subscriptions.formUnion(subscribes)
    client.login.login { c, _ in c.liveList.joinLive { c, r in if case .success = r { c.status = .idle } } }
  }
  func applyIntent(_ c: inout Client) { onApply?(&c) }
  func timer(tag: UInt32, arg: UInt32, _ c: inout Client) { onTimer?(tag, &c) }
  func guestEvent(_ e: GuestEvent, _ c: inout Client) {
    log.append("\(c.user) \(e)")
    onGuest?(e, &c)
  }
  func hostEvent(_ e: HostEvent, _ c: inout Client) {
    log.append("\(c.user) \(e)")
    onHost?(e, &c)
  }
  func seatListChanged(_ change: SeatChangeEvent, _ c: inout Client) {
    log.append("\(c.user) seat \(change.seatIndex) \(change.seated ? "+" : "-")\(change.user)")
    onSeat?(change, &c)
  }
  func loginEvent(_ e: LoginEvent, _ c: inout Client) { log.append("\(c.user) login \(e)") }
  func appStateChanged(foreground: Bool, _ c: inout Client) {
    log.append("\(c.user) app \(foreground ? "foreground" : "background")")
    onAppState?(foreground, &c)
  }

  /// A host that accepts every application as soon as it hears of it.
  static func acceptingHost() -> ScriptedClient {
    let host = ScriptedClient()
    host.onHost = { e, c in
      if case .onGuestApplicationReceived(let guest) = e { c.coGuest.acceptApplication(userID: guest) }
    }
    return host
  }

  /// A completion that logs `label` and the outcome.
  func logged(_ label: String) -> Completion {
    { [unowned self] c, r in
      switch r {
      case .success: self.log.append("\(c.user) \(label) ok")
      case .failure(let e): self.log.append("\(c.user) \(label) \(e.rawValue)")
      }
    }
  }
}

final class ScriptedPhone: ClientBehavior {
  var log: [String] = []
  var onTimer: ((UInt32, inout Client) -> Void)?
  var onCall: ((CallEvent, inout Client) -> Void)?
  func start(_ c: inout Client) {
    c.callStore.subscribe()
    c.login.login()
  }
  func timer(tag: UInt32, arg: UInt32, _ c: inout Client) { onTimer?(tag, &c) }
  func callEvent(_ e: CallEvent, _ c: inout Client) {
    log.append("\(c.user) \(e)")
    onCall?(e, &c)
  }
}

/// The built-in phone with hooks: tags from 100 go to `onTimer`, and each callback can be replaced
/// to plant a mistake.
final class HookedPhone: ClientBehavior {
  let inner: StandardPhone
  var onTimer: ((UInt32, inout Client) -> Void)?
  var onPush: ((VoIPPush, inout Client) -> Void)?
  var onAction: ((ConversationAction, inout Client) -> Void)?
  var onToken: ((UInt16, inout Client) -> Void)?
  var onCall: ((CallEvent, inout Client) -> Bool)?
  var actions: [ConversationAction] = []

  init(_ profile: Profile) {
    let calls = profile.calls!
    inner = StandardPhone(settings: calls.phone, phones: 5..<8)
  }

  func start(_ c: inout Client) { inner.start(&c) }
  func timer(tag: UInt32, arg: UInt32, _ c: inout Client) {
    if tag >= 100 { onTimer?(tag, &c) } else { inner.timer(tag: tag, arg: arg, &c) }
  }
  func callEvent(_ e: CallEvent, _ c: inout Client) {
    if onCall?(e, &c) == true { return }
    inner.callEvent(e, &c)
  }
  func loginEvent(_ e: LoginEvent, _ c: inout Client) { inner.loginEvent(e, &c) }
  func pushTokenUpdated(_ token: UInt16, _ c: inout Client) {
    if let onToken { onToken(token, &c) } else { inner.pushTokenUpdated(token, &c) }
  }
  func incomingPush(_ push: VoIPPush, _ c: inout Client) {
    if let onPush { onPush(push, &c) } else { inner.incomingPush(push, &c) }
  }
  func conversationAction(_ action: ConversationAction, _ c: inout Client) {
    actions.append(action)
    if let onAction { onAction(action, &c) } else { inner.conversationAction(action, &c) }
  }
}

/// When the host heard each viewer's application (ms).
final class HeardApplications { var at: [UInt32: Int64] = [:] }

/// A host that notes when it hears each application, and viewers that apply (30 s) when told.
func applicationListeners() -> (host: ScriptedClient, viewer: ScriptedClient, heard: HeardApplications) {
  let heard = HeardApplications()
  let host = ScriptedClient()
  host.onHost = { e, c in
    if case .onGuestApplicationReceived(let g) = e { heard.at[g] = c.now.nanoseconds / 1_000_000 }
  }
  let viewer = ScriptedClient()
  viewer.onApply = { c in c.coGuest.applyForSeat(timeout: .seconds(30)) }
  return (host, viewer, heard)
}
