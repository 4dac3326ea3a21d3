import AtomicXCore

// Seed 003's call (the guide's "发起通话") as printed, inside a function for the dial tap to call:
// the callees and the media type the tap picked stand in for the guide's placeholders.
func seedCall(_ userIDs: [String], video: Bool) {
    // 构造通话参数（不需要设置 offlinePushInfo）
    var params = CallParams()
    params.timeout = 30                // 超时时间（秒）
    params.userData = "自定义数据"      // 扩展信息（可选）

    // 发起通话
    let userIdList = userIDs
    let mediaType = video ? CallMediaType.video : CallMediaType.audio  // .video 视频通话，.audio 语音通话

    CallStore.shared.calls(
        participantIds: userIdList,
        callMediaType: mediaType,
        params: params
    ) { result in
        switch result {
        case .success:
            // 通话发起成功
            // 此时可以跳转到您自己的通话页面
            break
        case .failure(let error):
            // 通话失败处理
            break
        }
    }
}
