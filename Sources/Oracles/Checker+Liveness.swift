import Clients
import LiveStack
import SimKernel

/// What the liveness judgment reads at the end of a run: both sides' state, read-only.
public struct LivenessView {
  /// The server side.
  public var server: Server
  /// Every client's SDK state.
  public var runtime: ClientRuntime
  /// The network (what is still in flight).
  public var network: Network
  /// The phones' operating system, when the run has phones.
  public var phones: PhoneSystem?
  /// How long a conversation may outlive its call.
  public var conversationGrace: SimDuration
  /// Per request: the timeout it was filed with (0: none), in nanoseconds.
  public var requestTimeoutsNs: [Int64]
  /// Per call: its ringing timeout, in nanoseconds.
  public var callTimeoutsNs: [Int64]
  /// Whether `user` has an SDK call in flight.
  public var inFlight: (UInt32) -> Bool
  /// Whether a signalling message reaches `user` now (a phone app must run and be logged in).
  public var connected: (UInt32) -> Bool

  /// A view of both sides.
  public init(
    server: Server, runtime: ClientRuntime, network: Network, phones: PhoneSystem?, conversationGrace: SimDuration,
    requestTimeoutsNs: [Int64], callTimeoutsNs: [Int64], inFlight: @escaping (UInt32) -> Bool,
    connected: @escaping (UInt32) -> Bool
  ) {
    self.server = server
    self.runtime = runtime
    self.network = network
    self.phones = phones
    self.conversationGrace = conversationGrace
    self.requestTimeoutsNs = requestTimeoutsNs
    self.callTimeoutsNs = callTimeoutsNs
    self.inFlight = inFlight
    self.connected = connected
  }
}

/// Liveness: what must have happened by the end of a run, judged once faults have healed.
extension Checker {
  /// Judges the liveness invariants at the end of a run (`now`), allowing `slack` for answers in
  /// flight: request and call deadlines, conversations that outlived their calls, and every
  /// settled client's view against the server's.
  public mutating func judgeLiveness(now: SimInstant, slack: SimDuration, view: LivenessView) {
    judgeRequestDeadlines(now: now, slack: slack, view)
    judgeCallDeadlines(now: now, slack: slack, view)
    judgeConversations(now: now, view)
    judgeClientViews(now: now, view)
  }

  /// `call.released-within-timeout`: a call that never started must have ended within its timeout
  /// plus the slack.
  mutating func judgeCallDeadlines(now: SimInstant, slack: SimDuration, _ view: LivenessView) {
    for (i, c) in view.server.calls.calls.enumerated() where c.startedAt == nil {
      let deadline = c.createdAt.nanoseconds + view.callTimeoutsNs[i] + slack.nanoseconds
      let late = c.endedAt.map { $0.nanoseconds > deadline } ?? (now.nanoseconds > deadline)
      guard late else { continue }
      recordLiveness(
        .callReleased, at: now, entities: ["call:\(i)", "user:\(c.caller)"],
        "call \(i) from user \(c.caller) was never answered and "
          + (c.endedAt.map { "ended only at \($0)" } ?? "is still ringing at \(now)"))
    }
  }

  /// `request.terminal-within-timeout`: a request with a timeout that is still pending more than
  /// timeout + slack after it was filed, or that ended later than that.
  mutating func judgeRequestDeadlines(now: SimInstant, slack: SimDuration, _ view: LivenessView) {
    for (i, r) in view.server.seats.requests.enumerated() {
      let timeout = view.requestTimeoutsNs[i]
      guard timeout > 0 else { continue }
      let deadline = r.createdAt.nanoseconds + timeout + slack.nanoseconds
      let late = r.state.isTerminal ? r.endedAt.nanoseconds > deadline : now.nanoseconds > deadline
      guard late else { continue }
      recordLiveness(
        .terminalWithinTimeout, at: now, entities: ["request:\(i)", "user:\(r.guest)", "room:\(r.room)"],
        "\(r.kind) \(i) with a \(SimDuration(nanoseconds: timeout)) timeout is "
          + (r.state.isTerminal ? "\(r.state) only at \(r.endedAt)" : "still pending at \(now)"))
    }
  }

  /// `client.view-matches-server`: for every client with no message to or from the server in
  /// flight and no SDK call pending, its SDK state against the server's.
  mutating func judgeClientViews(now: SimInstant, _ view: LivenessView) {
    // Who each room's pending requests belong to, from the server.
    var applicants = [[UInt32]](repeating: [], count: view.server.layout.rooms)
    var invitees: [UInt32: [UInt32]] = [:]
    for r in view.server.seats.requests where r.state == .pending {
      if r.kind == .application {
        applicants[Int(r.room)].append(r.guest)
      } else {
        invitees[r.host, default: []].append(r.guest)
      }
    }
    for u in 0..<UInt32(view.server.layout.totalUsers) {
      guard view.network.isQuiet(UInt32(u), at: now), !view.inFlight(u) else {
        continue
      }
      let client = view.runtime.clients[Int(u)]
      if view.server.layout.isPhone(u) {
        // Only a connected app's SDK can know; a suspended or killed one catches up when it connects.
        guard view.connected(u) else { continue }
        let serverCall = view.server.calls.call(of: u).map { $0 + 1 } ?? 0
        if client.call != serverCall || client.callState != view.server.calls.state(of: u) {
          recordLiveness(
            .viewMatchesServer, at: now, entities: ["user:\(u)"],
            "user \(u)'s SDK shows call \(Int(client.call) - 1) \(client.callState), server \(Int(serverCall) - 1) \(view.server.calls.state(of: u))"
          )
        }
        continue
      }
      guard client.status != .away else { continue }
      // Seat deltas still held for the room's broadcast have not even left the server.
      guard !view.server.feed.isBusy(room: view.server.layout.homeRoom[Int(u)]) else { continue }
      var problems: [String] = []
      let serverSeat = view.server.seats.seat(of: u)
      let seen = client.seenSeat < 0 ? nil : Int(client.seenSeat)
      if seen != serverSeat {
        problems.append(
          "seat list shows \(seen.map(String.init) ?? "no seat"), server \(serverSeat.map(String.init) ?? "no seat")")
      }
      let onSeat = client.status == .connecting || client.status == .connected
      if view.server.layout.role(of: u) == .audience && onSeat != (serverSeat != nil) {
        problems.append("status \(client.status.name) but the server has it \(serverSeat == nil ? "off" : "on") a seat")
      }
      let serverCall = view.server.calls.call(of: u).map { $0 + 1 } ?? 0
      if client.call != serverCall || client.callState != view.server.calls.state(of: u) {
        problems.append(
          "the SDK shows call \(Int(client.call) - 1) \(client.callState), the server \(Int(serverCall) - 1) \(view.server.calls.state(of: u))"
        )
      }
      if view.runtime.anyDeviceOn(user: u) && serverSeat == nil && view.server.calls.state(of: u) != .accept {
        problems.append("a capture device is on but the server has it on no seat")
      }
      let applying = client.status == .applying
      let serverApplying = view.server.seats.pendingApplication(of: u) != nil
      if view.server.layout.role(of: u) == .audience && applying && !serverApplying {
        problems.append("status applying but the server has no application from it")
      }
      let inRoom = view.server.seats.room(of: u) != nil
      if (client.joinedRoom != 0) != inRoom {
        problems.append("SDK \(client.joinedRoom != 0 ? "in" : "out of") the room, server \(inRoom ? "in" : "out")")
      }
      let serverInviter =
        view.server.seats.pendingInvitation(of: u).map { view.server.seats.requests[Int($0)].host + 1 } ?? 0
      if client.invitation != serverInviter {
        problems.append("invitation from \(Int(client.invitation) - 1), server \(Int(serverInviter) - 1)")
      }
      if client.staffSlot < 0, client.joinedRoom != 0, inRoom {
        // A viewer's whole list, once room messaging brought it every change.
        let room = view.server.layout.homeRoom[Int(u)]
        if view.server.feed.isSettled(room: room, viewer: u, now: now) {
          let truth = (0..<view.server.seats.settings[Int(room)].seatCount).map {
            view.server.seats.occupant(room: room, seat: $0).map { $0 + 1 } ?? 0
          }
          let seen = view.runtime.seatList(of: u, at: now)
          if seen != truth {
            problems.append("seat list \(Checker.occupants(seen)) but server \(Checker.occupants(truth))")
          }
        }
      }
      if client.staffSlot >= 0, inRoom {
        let slot = Int(client.staffSlot)
        let room = view.server.layout.homeRoom[Int(u)]
        let truth = (0..<view.server.seats.settings[Int(room)].seatCount).map {
          view.server.seats.occupant(room: room, seat: $0).map { $0 + 1 } ?? 0
        }
        if view.runtime.seatView[slot] != truth {
          problems.append("seat list \(view.runtime.seatView[slot]) but server \(truth)")
        }
        if Set(view.runtime.applicants[slot]) != Set(applicants[Int(room)])
          || view.runtime.applicants[slot].count != applicants[Int(room)].count
        {
          problems.append("applicants \(view.runtime.applicants[slot]) but server \(applicants[Int(room)])")
        }
        if Set(view.runtime.invitees[slot]) != Set(invitees[u] ?? []) {
          problems.append("invitees \(view.runtime.invitees[slot]) but server \(invitees[u] ?? [])")
        }
      }
      guard !problems.isEmpty else { continue }
      recordLiveness(
        .viewMatchesServer, at: now, entities: ["user:\(u)", "room:\(view.server.layout.homeRoom[Int(u)])"],
        "user \(u)'s client disagrees with the server: " + problems.joined(separator: "; "))
    }
  }

  /// `conversation.ends`, at the end of a run: every conversation whose call ended more than the
  /// grace period ago must have ended.
  mutating func judgeConversations(now: SimInstant, _ view: LivenessView) {
    guard let os = view.phones else { return }
    let grace = view.conversationGrace.nanoseconds
    for conv in os.conversations.values.sorted(by: { ($0.phone, $0.uuid) < ($1.phone, $1.uuid) }) {
      guard conv.call != 0, let ended = view.server.calls.calls[Int(conv.call - 1)].endedAt,
        now.nanoseconds - ended.nanoseconds > grace
      else { continue }
      recordLiveness(
        .conversationEnds, at: now,
        entities: ["user:\(conv.phone)", "call:\(conv.call - 1)", "conversation:\(conv.uuid)"],
        "conversation \(conv.uuid) of user \(conv.phone) is still active; its call \(conv.call - 1) ended at \(ended)")
    }
  }

}
