import Chaos
import Clients
import LiveStack
import Oracles
import Profiles
import SimKernel

/// Devices: a microphone or camera open reaching its answer, and a viewer's app going to the
/// background (where iOS suspends camera capture) and back.
extension LiveWorld {
  mutating func deviceReply(slot: UInt32, _ scheduler: inout Scheduler) {
    var completion: Completion?
    let op = backend.inFlight.take(slot, completion: &completion)
    let device: CaptureDevice = op.kind == .openLocalMicrophone ? .microphone : .camera
    if checking { observers.checker.observeDeviceAnswered(user: op.user, device) }
    guard op.generation == generation(of: op.user) else { return }
    // One microphone per phone: a second user of it (a call and the live) finds it occupied
    // (`devices.microphoneReopen`, `devices.cameraReopen`).
    let reopenOccupied =
      device == .microphone ? profile.devices.microphoneReopenOccupied : profile.devices.cameraReopenOccupied
    var error: SeatError? =
      reopenOccupied && runtime.isOn(device, user: op.user)
      ? (device == .microphone ? .microphoneOccupied : .cameraOccupied)
      : profile.devices.failures.draw(device, &links[Int(op.user)].devices)
    if error == nil {
      error =
        device == .microphone
        ? backend.chaos.microphoneFault(user: op.user, scheduler.now)
        : backend.chaos.cameraFault(user: op.user, scheduler.now)
    }
    measured.coverage.answered(op.kind, error, carriedOut: true)
    if let error {
      measured.counters.add(device == .microphone ? measured.micFailed : measured.audioOnly)
      measured.countError(error)
    } else if op.seat == runtime.closes(of: device, user: op.user) {
      runtime.setDevice(device, user: op.user, on: true)
    }
    // (Closed since it was asked for: the SDK opened it, then closed it as asked, and it stays
    // off; the open itself succeeded.)
    complete(op, &completion, error, &scheduler)
  }

  /// `user`'s app starts: its behaviour's start, and for a viewer the first of its trips to the
  /// background when the profile sends apps there.
  mutating func startClient(_ user: UInt32, _ scheduler: inout Scheduler) {
    run(user, .start, &scheduler)
    if let every = profile.audience.backgroundEvery, layout.role(of: user) == .audience, !layout.isPhone(user) {
      scheduler.schedule(after: every.sampleDuration(&viewerAppRandom[Int(user)]), event(.viewerApp, user, 1))
    }
  }

  /// A viewer's app enters the background or comes back (`audience.background`); the next step
  /// follows while the viewer stays in its room.
  mutating func viewerApp(_ user: UInt32, toBackground: Bool, _ scheduler: inout Scheduler) {
    let status = runtime.clients[Int(user)].status
    guard status != .left && status != .away else {
      runtime.inBackground[user] = nil
      return
    }
    if toBackground {
      runtime.inBackground[user] = scheduler.now
      measured.counters.add(measured.viewersBackgrounded)
    } else {
      runtime.inBackground[user] = nil
    }
    run(user, .appStateChanged(foreground: !toBackground), &scheduler)
    // Scheduled whether or not the oracles check, so that checking never changes the trace.
    if toBackground { scheduler.schedule(after: Checker.backgroundCameraSettle, event(.backgroundCheck, user)) }
    let next = toBackground ? profile.audience.backgroundFor : profile.audience.backgroundEvery!
    scheduler.schedule(
      after: next.sampleDuration(&viewerAppRandom[Int(user)]), event(.viewerApp, user, toBackground ? 0 : 1))
  }
}
