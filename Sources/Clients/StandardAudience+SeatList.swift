import LiveStack
import SimKernel

/// The built-in viewer's own seat as its seat list shows it (a separate channel from the co-guest
/// events, so a seat may come before or after the event that explains it), and its app going to
/// the background and back.
extension StandardAudience {
  public func seatListChanged(_ change: SeatChangeEvent, _ c: inout Client) {
    guard change.user == c.user, !mistakes.contains(.statusFromCallbacks) else { return }
    if mistakes.contains(.seatExpectedWithAccept) && change.seated && c.status == .idle {
      return  // the mistake: only an accept connects a viewer
    }
    if mistakes.contains(.moveReadAsLeave) {
      // The mistake: any delta off a seat ends the session, and a seat connects only while applying.
      if change.seated {
        if c.status == .applying { beginConnecting(&c) }
      } else {
        removedFromSeat(&c)
      }
      return
    }
    let u = Int(c.user)
    if change.seated {
      underWay[u] &= ~StandardAudience.invitationUnanswered
      if c.status == .applying {
        underWay[u] |= StandardAudience.listedWhileApplying
        mayStandFromMs[u] = appliedAtMs[u]
      } else {
        answerCame(&c)  // a seat of its own: no application waits behind it
      }
      if c.status == .applying || c.status == .idle { beginConnecting(&c) }
    } else if c.liveSeat.mySeatIndex == nil {
      let inSession = c.status == .connecting || c.status == .connected
      removedFromSeat(&c)
      let mayStand = listedApplication(c.user)
      if let mayStand, inSession && c.now.nanoseconds < mayStand {
        // Taken off a seat the list gave while no answer to the application had come: the seat
        // was perhaps an earlier session's, and the application may still stand. Keep waiting
        // for its answer (which, if an accept, finds this session over).
        c.status = .applying
        // Its timeout's answer would have come a moment after it: if none has by then, it is
        // over (an accept whose event was lost), and the viewer gives up on it.
        let deadline = mayStand + 2_000_000_000
        c.schedule(
          after: .nanoseconds(max(1_000_000, deadline - c.now.nanoseconds)), tag: Tag.giveUp.rawValue, arg: epoch[u])
      } else if mayStand != nil {
        answerCame(&c)
      }
    }
  }

  /// The application's answer came (or its session is over): a seat the list gives from now on
  /// is not taken for an earlier session's.
  func answerCame(_ c: inout Client) {
    underWay[Int(c.user)] &= ~StandardAudience.listedWhileApplying
  }

  /// Until when the application of a viewer the seat list seated while it applied could still
  /// stand (`nil`: the viewer is not such a one).
  @inline(__always)
  func listedApplication(_ user: UInt32) -> Int64? {
    guard underWay[Int(user)] & StandardAudience.listedWhileApplying != 0 else { return nil }
    let timeout = settings.applyTimeout > .zero ? settings.applyTimeout : .seconds(30)
    return Int64(mayStandFromMs[Int(user)]) * 1_000_000 + timeout.nanoseconds
  }

  /// In the background iOS suspends camera capture: the camera is closed (the microphone goes on),
  /// and opened again on return while the guest is still on its seat.
  public func appStateChanged(foreground: Bool, _ c: inout Client) {
    if !foreground {
      if c.device.cameraOn && !mistakes.contains(.cameraOnInBackground) { c.device.closeLocalCamera() }
    } else if c.status == .connected && !c.device.cameraOn
      && underWay[Int(c.user)] & StandardAudience.cameraOpening == 0
    {
      underWay[Int(c.user)] |= StandardAudience.cameraOpening
      c.device.openLocalCamera(completion: cameraReopened)
    }
  }
}

extension StandardAudience {
  public func timerName(tag: UInt32) -> String? { Tag(rawValue: tag).map { "\($0)" } }
}
