import LiveCommunicationKit
import PushKit

/// Wrong: the push handler as the TIMPush integration guide's sample writes it. Everything else is
/// ``VoIPPushManager``'s. Two mistakes, each enough to get the app killed (caught by
/// `push.reported-within-deadline`):
/// - a payload without `voip_caller_name` returns without reporting;
/// - the report runs in a `Task` nobody awaits, so the handler has finished, with nothing
///   reported, by the time it runs.
public final class GuidePushManager: VoIPPushManager {
  public override func pushRegistry(
    _ registry: PKPushRegistry, didReceiveIncomingVoIPPushWith payload: PKPushPayload, metadata: PKVoIPPushMetadata
  ) async {
    let fields = VoIPPushManager.read(payload)
    guard let callerName = fields.callerName else { return }
    let uuid = UUID()
    currentCallUUID = uuid
    let update = VoIPPushManager.update(callerName: callerName, isVideo: fields.isVideo)
    Task {
      do {
        try await conversationManager.reportNewIncomingConversation(uuid: uuid, update: update)
      } catch {
        currentCallUUID = nil
      }
    }
  }
}
