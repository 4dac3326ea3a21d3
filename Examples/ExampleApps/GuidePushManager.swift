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
    let fields = payload.dictionaryPayload
    guard let callerName = fields["voip_caller_name"] as? String else { return }
    var isVideo = false
    if let ext = fields["ext"] as? String, let data = ext.data(using: .utf8),
      let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let voip = json["voip_ext"] as? [String: String]
    {
      isVideo = voip["voip_media_type"] == "video"
    }
    let uuid = UUID()
    currentCallUUID = uuid
    var update = Conversation.Update(members: [Handle(type: .generic, value: callerName, displayName: callerName)])
    update.capabilities = isVideo ? .video : .playingTones
    Task {
      do {
        try await conversationManager.reportNewIncomingConversation(uuid: uuid, update: update)
      } catch {
        currentCallUUID = nil
      }
    }
  }
}
