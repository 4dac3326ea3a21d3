import LiveStack
import SimKernel

/// The built-in viewer's withdrawals: cancelling an application it no longer waits for, and
/// sending the cancel again while it got no answer.
extension StandardAudience {
  /// Cancels an application the viewer no longer waits for. A cancel that got no answer (-1) may
  /// never have reached the server, so the application may stand: an idle viewer off any seat
  /// shows "applying" for it again (as the SDK's own status stays applying until a cancel is
  /// confirmed) and cancels it as one it gave up on, until a cancel is answered; a viewer in a
  /// session sends the cancel again and stays as it is.
  func withdraw(_ c: inout Client) {
    sendCancel(&c) { [unowned(unsafe) self] c, result in
      guard case .failure(.failed) = result else { return }
      let u = Int(c.user)
      guard c.status == .idle, c.liveSeat.mySeatIndex == nil, c.liveList.isInRoom else {
        return self.cancelAgainLater(&c, tag: .withdraw, epoch: self.epoch[u])
      }
      self.epoch[u] &+= 1
      c.status = .applying
      self.underWay[u] |= StandardAudience.withdrawing
      self.cancelAgainLater(&c, tag: .cancelAgain, epoch: self.epoch[u])
    }
  }

  /// An accept of an application the viewer gave up on (its cancel got no answer; the accept may
  /// be one it heard before, delivered twice) connects nothing: the viewer goes idle, and a seat
  /// the server gave comes on the seat list, which connects it from idle while it stands. Returns
  /// whether the viewer was withdrawing.
  func acceptEndsWithdrawal(_ c: inout Client) -> Bool {
    let u = Int(c.user)
    guard underWay[u] & StandardAudience.withdrawing != 0 else { return false }
    underWay[u] &= ~StandardAudience.withdrawing
    c.status = .idle
    return true
  }

  /// Sends `cancelApplication`, counted in ``cancelsOut`` until its answer.
  func sendCancel(_ c: inout Client, _ then: @escaping Completion) {
    cancelsOut[Int(c.user)] &+= 1
    c.coGuest.cancelApplication { [unowned(unsafe) self] c, result in
      self.cancelsOut[Int(c.user)] &-= 1
      then(&c, result)
    }
  }

  /// Schedules a cancel to be sent again, counted in ``cancelsOut`` until its timer fires.
  func cancelAgainLater(_ c: inout Client, tag: Tag, epoch e: UInt32) {
    cancelsOut[Int(c.user)] &+= 1
    c.schedule(after: SDKTiming.resendAfter, tag: tag.rawValue, arg: e)
  }

  /// Applies again later, unless the application that ended was one the viewer had given up on.
  func retryUnlessWithdrawn(after delay: Distribution?, _ c: inout Client) {
    let u = Int(c.user)
    if underWay[u] & StandardAudience.withdrawing != 0 {
      underWay[u] &= ~StandardAudience.withdrawing
      return
    }
    retry(after: delay, &c)
  }
}
