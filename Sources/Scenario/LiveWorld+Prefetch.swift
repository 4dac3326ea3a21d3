import Clients
import LiveStack
import SimKernel

extension LiveWorld {
  /// The number of viewers and staff from which the run loop hands the live world its next event
  /// before each one it handles: 4-9% faster at 300,000 and about 9% at a million on copies of
  /// capacity-1m. Below it the gain depends on the workload: 7-10% on seat-rush at 51,000 and
  /// 102,000 room users and on capacity-1m at 100,000, none on bench-mmcc at 144,000, where the
  /// hints add 6% to the instructions (docs/DESIGN.md). Phone users do not count: call-storm with
  /// 100,000 phones and no room ran 4% slower with hints.
  public static let prefetchFromRoomUsers = 200_000

  /// Starts loading the per-user records the next event will read, while the current one runs.
  ///
  /// With a million users those records are spread over hundreds of megabytes, and an event that
  /// loads them only when it starts waits for memory several times over. The next event is known
  /// one event ahead (``EventQueue/upcomingGuess()``): its user (named by the event, by its
  /// ``WireTag``, or by the notice it carries, whose small table stays in the cache) is looked up,
  /// and its client record, network record (with its random streams) and UI-settle time are
  /// hinted, with the timer a timer event takes (and, for an answer that enters the user's room,
  /// the interval starts it closes); a request reaching the server or served there hints the
  /// server's records it reads instead (home room, rate window, login state or membership;
  /// measured in docs/DESIGN.md). Hints change nothing: the trace is the same without them.
  public mutating func prefetch(_ next: Event) {
    let user: UInt32
    // (On the raw kind: the hint must cost little, and the enum's initializer is a call.)
    switch next.kind {
    case LiveEvent.clientTimer.rawValue:
      backend.inFlight.prefetchTimer(next.b)
      user = next.a
    case LiveEvent.arrival.rawValue:
      user = next.b
      // The event draws the arrival time of the room's next viewer, who sits in the next place.
      layout.viewerOfPlace.prefetch(Int(user) + 1)
    case LiveEvent.clientStart.rawValue, LiveEvent.applyIntent.rawValue, LiveEvent.audienceRejoin.rawValue,
      LiveEvent.hostReenter.rawValue, LiveEvent.presenceLost.rawValue, LiveEvent.sdkRejoin.rawValue:
      user = next.a
    case LiveEvent.serverCall.rawValue, LiveEvent.serverServed.rawValue:
      // The server's records only: the client's own wait for its answer. (The event names the
      // user, its service and whether it enters or leaves a room: ``WireTag``.)
      let u = WireTag.user(ofRequest: next.b)
      let service = WireTag.service(ofRequest: next.b)
      backend.inFlight.prefetchRecord(next.a)
      backend.network.links.prefetch(Int(u))
      if next.kind == LiveEvent.serverCall.rawValue {
        backend.desk.prefetchArrival(service, of: u, layout: layout)
      } else {
        let login = service == ServiceDesk.Service.login.rawValue
        backend.server.prefetchServing(u, login: login, membership: WireTag.entersOrLeavesRoom(next.b))
      }
      return
    case LiveEvent.clientReply.rawValue, LiveEvent.deviceReply.rawValue:
      backend.inFlight.prefetchCompletion(next.a)
      backend.inFlight.prefetchRecord(next.a)
      user = WireTag.user(ofReply: next.b)
      if WireTag.entersRoom(ofReply: next.b) { measured.prefetchIntervalStarts(of: user) }
    case LiveEvent.clientNotice.rawValue:
      guard let u = backend.network.recipientIfPending(ofNotice: next.a) else { return }
      user = u
    default:
      return
    }
    let i = Int(user)
    // Who the user is and where (read by the client dispatch and the server alike).
    layout.homeRoom.prefetch(i)
    layout.roles.prefetch(i)
    runtime.clients.prefetch(i)
    backend.network.links.prefetch(i)
    // A client callback ends by asking whether a probe reads the user's UI and noting when it
    // settles (the UI oracles).
    if checking {
      runtime.ui.prefetch(user)
      observers.uiWatch.until.prefetch(i)
    }
  }
}
