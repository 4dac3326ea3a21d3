import SimKernel

/// A phone's capture devices.
public enum CaptureDevice: UInt8, Sendable, CaseIterable {
  /// The microphone.
  case microphone
  /// The camera.
  case camera
}

/// How often opening a device fails, and how. All zero by default.
public struct DeviceFailureRates: Sendable, Equatable {
  /// Microphone permission denied (-1105).
  public var microphoneDenied: Ratio
  /// Microphone held by another app (-1106).
  public var microphoneOccupied: Ratio
  /// Camera permission denied (-1101).
  public var cameraDenied: Ratio
  /// Camera held by another app (-1102).
  public var cameraOccupied: Ratio

  /// No failures.
  public static let none = DeviceFailureRates(
    microphoneDenied: .zero, microphoneOccupied: .zero, cameraDenied: .zero, cameraOccupied: .zero)

  /// Creates failure rates.
  public init(microphoneDenied: Ratio, microphoneOccupied: Ratio, cameraDenied: Ratio, cameraOccupied: Ratio) {
    self.microphoneDenied = microphoneDenied
    self.microphoneOccupied = microphoneOccupied
    self.cameraDenied = cameraDenied
    self.cameraOccupied = cameraOccupied
  }

  /// Draws whether opening `device` fails, and with which error.
  public func draw<R: RandomSource>(_ device: CaptureDevice, _ rng: inout R) -> SeatError? {
    switch device {
    case .microphone:
      if rng.chance(microphoneDenied) { return .microphoneNotAuthorized }
      if rng.chance(microphoneOccupied) { return .microphoneOccupied }
    case .camera:
      if rng.chance(cameraDenied) { return .cameraNotAuthorized }
      if rng.chance(cameraOccupied) { return .cameraOccupied }
    }
    return nil
  }
}

/// Login state per user (`LoginStore`): `unlogin` → `logined`.
public struct LoginService: Sendable {
  @usableFromInline var loggedIn: [Bool]
  /// Users logged in right now.
  public private(set) var loggedInCount = 0

  /// Everyone logged out.
  public init(userCount: Int) { loggedIn = [Bool](table: false, count: userCount) }

  /// Whether `user` is logged in.
  @inlinable public func isLoggedIn(_ user: UInt32) -> Bool { loggedIn[Int(user)] }

  /// Logs `user` in. Returns -3 (repeated operation) if it was logged in already, which the server
  /// answers as a login (see `Server.perform`).
  public mutating func login(_ user: UInt32) -> SeatError? {
    guard !loggedIn[Int(user)] else { return .refused }
    loggedIn[Int(user)] = true
    loggedInCount += 1
    return nil
  }

  /// Logs `user` out (also what `kickedOffline` and `loginExpired` do). Returns whether it was in.
  @discardableResult
  public mutating func logout(_ user: UInt32) -> Bool {
    guard loggedIn[Int(user)] else { return false }
    loggedIn[Int(user)] = false
    loggedInCount -= 1
    return true
  }
}
