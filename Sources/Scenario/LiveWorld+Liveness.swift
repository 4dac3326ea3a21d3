import Chaos
import Clients
import LiveStack
import Oracles
import SimKernel

extension LiveWorld {
  /// Judges the liveness invariants at the end of a run (`now`), allowing `slack` for answers in
  /// flight:
  /// - `request.terminal-within-timeout`: a request with a timeout that is still pending more than
  ///   timeout + slack after it was filed, or that ended later than that;
  /// - `client.view-matches-server`: for every client with no message to or from the server in
  ///   flight and no device call pending, its SDK state against the server's.
  public mutating func judgeLiveness(now: SimInstant, slack: SimDuration = .seconds(5)) {
    judgeRequestDeadlines(now: now, slack: slack)
    judgeCallDeadlines(now: now, slack: slack)
    judgeConversations(now: now)
    judgeClientViews(now: now)
  }

  /// `call.released-within-timeout`: a call that never started must have ended within its timeout
  /// plus the slack.
  mutating func judgeCallDeadlines(now: SimInstant, slack: SimDuration) {
    for (i, c) in server.calls.calls.enumerated() where c.startedAt == nil {
      let deadline = c.createdAt.nanoseconds + callTimeouts[i] + slack.nanoseconds
      let late = c.endedAt.map { $0.nanoseconds > deadline } ?? (now.nanoseconds > deadline)
      guard late else { continue }
      checker.record(
        SeatChecker.callReleased, at: now, entities: ["call:\(i)", "user:\(c.caller)"],
        "call \(i) from user \(c.caller) was never answered and "
          + (c.endedAt.map { "ended only at \($0)" } ?? "is still ringing at \(now)"))
    }
  }

  mutating func judgeRequestDeadlines(now: SimInstant, slack: SimDuration) {
    for (i, r) in server.seats.requests.enumerated() {
      let timeout = requestTimeouts[i]
      guard timeout > 0 else { continue }
      let deadline = r.createdAt.nanoseconds + timeout + slack.nanoseconds
      let late = r.state.isTerminal ? r.endedAt.nanoseconds > deadline : now.nanoseconds > deadline
      guard late else { continue }
      checker.recordLiveness(
        SeatChecker.terminalWithinTimeout, at: now, entities: ["request:\(i)", "user:\(r.guest)", "room:\(r.room)"],
        "\(r.kind) \(i) with a \(SimDuration(nanoseconds: timeout)) timeout is "
          + (r.state.isTerminal ? "\(r.state) only at \(r.endedAt)" : "still pending at \(now)"))
    }
  }

  mutating func judgeClientViews(now: SimInstant) {
    var busy = Set<UInt32>()
    for op in ops where op.live { busy.insert(op.user) }
    // Who each room's pending requests belong to, from the server.
    var applicants = [[UInt32]](repeating: [], count: layout.rooms)
    var invitees: [UInt32: [UInt32]] = [:]
    for r in server.seats.requests where r.state == .pending {
      if r.kind == .application {
        applicants[Int(r.room)].append(r.guest)
      } else {
        invitees[r.host, default: []].append(r.guest)
      }
    }
    for u in 0..<UInt32(layout.totalUsers) {
      let record = users[Int(u)]
      guard network.isQuiet(UInt32(u), at: now), !busy.contains(u) else {
        continue
      }
      let client = runtime.clients[Int(u)]
      if layout.isPhone(u) {
        // Only a connected app's SDK can know; a suspended or killed one catches up when it connects.
        guard signallingReaches(u) else { continue }
        let serverCall = server.calls.call(of: u).map { $0 + 1 } ?? 0
        if client.call != serverCall || client.callState != server.calls.state(of: u) {
          checker.recordLiveness(
            SeatChecker.viewMatchesServer, at: now, entities: ["user:\(u)"],
            "user \(u)'s SDK shows call \(Int(client.call) - 1) \(client.callState), server \(Int(serverCall) - 1) \(server.calls.state(of: u))"
          )
        }
        continue
      }
      guard client.status != .away else { continue }
      var problems: [String] = []
      let serverSeat = server.seats.seat(of: u)
      let seen = client.seenSeat < 0 ? nil : Int(client.seenSeat)
      if seen != serverSeat {
        problems.append(
          "seat list shows \(seen.map(String.init) ?? "no seat"), server \(serverSeat.map(String.init) ?? "no seat")")
      }
      let onSeat = client.status == .connecting || client.status == .connected
      if layout.role(of: u) == .audience && onSeat != (serverSeat != nil) {
        problems.append("status \(client.status.name) but the server has it \(serverSeat == nil ? "off" : "on") a seat")
      }
      let serverCall = server.calls.call(of: u).map { $0 + 1 } ?? 0
      if client.call != serverCall || client.callState != server.calls.state(of: u) {
        problems.append(
          "the SDK shows call \(Int(client.call) - 1) \(client.callState), the server \(Int(serverCall) - 1) \(server.calls.state(of: u))"
        )
      }
      if runtime.anyDeviceOn(user: u) && serverSeat == nil && server.calls.state(of: u) != .accept {
        problems.append("a capture device is on but the server has it on no seat")
      }
      let applying = client.status == .applying
      let serverApplying = server.seats.pendingApplication(of: u) != nil
      if layout.role(of: u) == .audience && applying && !serverApplying {
        problems.append("status applying but the server has no application from it")
      }
      let inRoom = server.seats.room(of: u) != nil
      if (client.joinedRoom != 0) != inRoom {
        problems.append("SDK \(client.joinedRoom != 0 ? "in" : "out of") the room, server \(inRoom ? "in" : "out")")
      }
      let serverInviter = server.seats.pendingInvitation(of: u).map { server.seats.requests[Int($0)].host + 1 } ?? 0
      if client.invitation != serverInviter {
        problems.append("invitation from \(Int(client.invitation) - 1), server \(Int(serverInviter) - 1)")
      }
      if client.staffSlot >= 0, inRoom {
        let slot = Int(client.staffSlot)
        let room = layout.homeRoom[Int(u)]
        let truth = (0..<server.seats.settings[Int(room)].maxSeatCount).map {
          server.seats.occupant(room: room, seat: $0).map { $0 + 1 } ?? 0
        }
        if runtime.seatView[slot] != truth {
          problems.append("seat list \(runtime.seatView[slot]) but server \(truth)")
        }
        if Set(runtime.applicants[slot]) != Set(applicants[Int(room)])
          || runtime.applicants[slot].count != applicants[Int(room)].count
        {
          problems.append("applicants \(runtime.applicants[slot]) but server \(applicants[Int(room)])")
        }
        if Set(runtime.invitees[slot]) != Set(invitees[u] ?? []) {
          problems.append("invitees \(runtime.invitees[slot]) but server \(invitees[u] ?? [])")
        }
      }
      guard !problems.isEmpty else { continue }
      checker.recordLiveness(
        SeatChecker.viewMatchesServer, at: now, entities: ["user:\(u)", "room:\(layout.homeRoom[Int(u)])"],
        "user \(u)'s client disagrees with the server: " + problems.joined(separator: "; "))
    }
  }
}
