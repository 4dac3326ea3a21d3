import Foundation

/// An operation queue of a virtual user: `OperationQueue.main.addOperation { … }` (older code's hop
/// to the main thread), a queue of its own, and the queue `addObserver(forName:object:queue:using:)`
/// takes. Blocks run as later events of the user who added them, in the order added, as
/// `DispatchQueue.async` work does (every queue is serial on the one simulated thread). Foundation's
/// own would hand them to a main thread that never runs them here.
///
/// `Operation` objects (dependencies, asynchronous operations) are not simulated, and waiting for
/// a queue would block the one thread: neither compiles, with the reason.
public final class OperationQueue: @unchecked Sendable {
  /// The queue's name.
  public var name: String?
  /// Accepted and ignored (one simulated thread runs everything, one block at a time).
  public var maxConcurrentOperationCount = -1
  /// Accepted and ignored.
  public var qualityOfService: QualityOfService = .default
  /// Accepted and ignored.
  public var underlyingQueue: DispatchQueue?
  /// While true, added blocks wait; setting it false runs them.
  public var isSuspended = false {
    didSet { if !isSuspended { resume() } }
  }
  private var held: [(user: UInt32, run: () -> Void)] = []
  private var cancelledBefore = 0
  private var added = 0
  /// Blocks added and not yet run.
  public private(set) var operationCount = 0

  /// A queue of the app's own.
  public init() {}

  init(name: String) { self.name = name }

  /// The current user's main queue.
  public static let main = OperationQueue(name: "NSOperationQueue Main Queue")
  /// The queue of the code running now: the main one.
  public static var current: OperationQueue? { main }

  /// Runs `block` as a later event of the current user, at the same simulated time.
  @preconcurrency
  public func addOperation(_ block: @escaping @Sendable () -> Void) {
    guard let host = AppHost.inUser("OperationQueue.addOperation") else { return }
    added += 1
    operationCount += 1
    let ticket = added
    let run: () -> Void = { [self] in
      operationCount -= 1
      // Cancelled (`cancelAllOperations`) before its turn.
      if ticket > cancelledBefore { block() }
    }
    if isSuspended { held.append((host.user, run)) } else { host.post(run) }
  }

  /// Runs `barrier` once the blocks added before it have run (every queue is serial: at its turn).
  @preconcurrency
  public func addBarrierBlock(_ barrier: @escaping @Sendable () -> Void) { addOperation(barrier) }

  /// Cancels every block added and not yet run.
  public func cancelAllOperations() { cancelledBefore = added }

  /// Not simulated: `Operation` objects (dependencies, asynchronous operations).
  @available(*, unavailable, message: "Operation objects are not simulated; use addOperation { } or DispatchQueue")
  public func addOperation(_ op: Operation) {}

  /// Not offered: it would block the simulated thread that runs every piece of a user's code.
  @available(*, unavailable, message: "blocks the one simulated thread every piece of a user's code runs on")
  public func waitUntilAllOperationsAreFinished() {}

  private func resume() {
    guard !held.isEmpty, let host = AppHost.inUser("OperationQueue.isSuspended") else { return }
    let waiting = held
    held = []
    // Each as the user who added it.
    for (user, run) in waiting { host.run(as: user) { host.post(run) } }
  }
}
