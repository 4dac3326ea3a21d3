import Chaos
import Clients
import LiveStack
import Oracles
import SimKernel

/// A key of the table (shorthand for the tables in ProfileKeys*.swift).
func key(_ path: String, _ kind: ProfileKey.Kind, _ fallback: ProfileKey.Fallback, _ meaning: String)
  -> ProfileKey
{
  ProfileKey(path, kind, fallback, meaning)
}

/// Every profile key, and lookups over them.
public enum ProfileKeys {
  /// The services of `server.<service>` other than `messaging`.
  public static let services = ["seats", "login", "calls", "push"]

  /// The documented keys by the heading of docs/PROFILES.md whose table lists them (sections
  /// included; their tables leave them out). `server.<service>` stands for each service.
  public static let documented: [(heading: String, keys: [ProfileKey])] = [
    (
      "Run",
      [
        key(
          "name", .name, .required,
          "1–64 letters, digits, `-`, `_`; used in report paths"),
        key(
          "description", .string, .value(""),
          "one line about the profile"),
        key(
          "duration", .duration(minimum: .nanoseconds(1)), .required,
          "simulated time to run"),
        key(
          "seed", .seed, .value(1),
          "used when `--seed` is not given"),
        key(
          "limits", .section(filled: true), .value([:]),
          "limits on the run"),
        key(
          "limits.maxEvents", .whole(1...Int64.max), .value(2_000_000_000),
          "event budget; a run that reaches it stops with `stopReason: \"eventBudget\"`"),
        key(
          "timeSeries", .section(filled: true), .value([:]),
          "the time series of the report"),
        key(
          "timeSeries.interval", .duration(minimum: .milliseconds(1)), .value("10s"),
          "sampling interval of the time series in the report"),
      ]
    ),
    (
      "Population and arrivals",
      [
        key(
          "population", .section(filled: false), .required,
          "who is simulated"),
        key(
          "population.rooms", .whole(1...1_000_000), .required,
          "rooms; each has one owner (host)"),
        key(
          "population.audiencePerRoom", .countDistribution, .required,
          "viewers per room: a number, or a distribution drawn per room (popular and quiet rooms), each room from its own generator of the `rooms` random stream"
        ),
        key(
          "population.adminsPerRoom", .whole(0...100), .value(0),
          "admins, who act as additional hosts"),
        key(
          "population.firstRoom", .whole(0...1_000_000), .value(0),
          "how many rooms of a larger population come before these: room 0 here is that population's room `firstRoom`, with its identity and so its random draws (its size, its people's lives). `shrink` writes it when it leaves out the first rooms; a profile written by hand has no need of it"
        ),
        key(
          "arrival", .section(filled: true), .value([:]),
          "when viewers arrive"),
        key(
          "arrival.pattern", .choice(["closed", "poisson", "ramp"]), .value("closed"),
          "closed: everyone arrives at time zero; poisson: arrival times spread uniformly at random over `over` (a Poisson process given the count); ramp: a rate growing linearly from zero, so a quarter arrive in the first half"
        ),
        key(
          "arrival.over", .duration(minimum: .nanoseconds(1)), .requiredWhen("for poisson and ramp"),
          "window over which each room's viewers arrive"),
      ]
    ),
    (
      "Seats",
      [
        key(
          "seats", .section(filled: false), .required,
          "the rooms' seats"),
        key(
          "seats.maxSeatCount", .whole(0...32767), .required,
          "guest seats per room (the owner's excluded: with `keepOwnerOnSeat` the SDK's `maxSeatCount` is one more)"),
        key(
          "seats.packageLimit", .whole(0...32_767), .sameAs("seats.maxSeatCount"),
          "connected co-guests allowed by the plan (error -2340 beyond it)"),
        key(
          "seats.mode", .choice(SeatMode.allCases.map(\.rawValue)), .value("apply"),
          "apply: viewers ask and a host answers; free: viewers take a free seat directly"),
        key(
          "seats.applyTimeout", .duration(), .value("30s"),
          "the `timeout` clients pass to `applyForSeat`; `\"0s\"` means no timeout at all"),
        key(
          "seats.applyCompletion", .choice(Profile.ApplyCompletion.allCases.map(\.rawValue)), .value("sent"),
          "when `applyForSeat`'s completion fires: once the server filed the application (the events bring the answer), or at the final outcome (success if accepted, -1 otherwise). The SDK documents both."
        ),
        key(
          "seats.coHostSeatLimit", .whole(0...32767), .value(6),
          "seats that stay usable while a room co-hosts; guests beyond are removed"),
        key(
          "seats.keepOwnerOnSeat", .bool, .value(true),
          "the live's `keepOwnerOnSeat`: the owner takes seat 0 as it enters its live (as TUILiveKit's host takes a seat on starting) and keeps it; guests' seats follow from index 1. See \"The owner's seat\" below. `false`: the owner sits on no seat and guests' seats start at 0"
        ),
        key(
          "seats.lockLimit", .duration(minimum: .seconds(1)), .off,
          "how long a host's or admin's lock may keep an empty guest seat locked: longer is a `seat.lock-released` finding, with the lock's age. Off: a lock's intention is the app's"
        ),
      ]
    ),
    (
      "Audience (the built-in viewer client)",
      [
        key(
          "audience", .section(filled: false), .required,
          "the built-in viewer client"),
        key(
          "audience.stay", .distribution, .required,
          "time from joining to leaving the room"),
        key(
          "audience.applyProbability", .probability, .value(0),
          "chance that a viewer applies at all"),
        key(
          "audience.applyAfter", .distribution, .value("exponential(60s)"),
          "time from joining, or from leaving a seat, to tapping \"apply\""),
        key(
          "audience.patience", .optionalDistribution, .off,
          "how long a viewer waits for an answer before cancelling"),
        key(
          "audience.seatTime", .distribution, .value("lognormal(120s, 0.5)"),
          "time on the seat before leaving it (`disConnect`)"),
        key(
          "audience.maxApplies", .whole(0...255), .value(3),
          "applications per viewer at most"),
        key(
          "audience.retry", .section(filled: true), .value([:]),
          "waits before applying again, by how the last application ended"),
        key(
          "audience.retry.rejected", .optionalDistribution, .value("exponential(30s)"),
          "wait before applying again after a rejection"),
        key(
          "audience.retry.timedOut", .optionalDistribution, .value("exponential(30s)"),
          "… after `onGuestApplicationNoResponse(timeout)`"),
        key(
          "audience.retry.seatLimit", .optionalDistribution, .off,
          "… after -2340: waiting does not lift a plan limit, so the default is not to retry"),
        key(
          "audience.retry.allSeatsTaken", .optionalDistribution, .value("exponential(30s)"),
          "… after 100205"),
        key(
          "audience.retry.kicked", .optionalDistribution, .off,
          "… after being removed from the seat by someone else"),
        key(
          "audience.retry.other", .optionalDistribution, .value("exponential(30s)"),
          "… after any other failure (including a microphone that would not open)"),
        key(
          "audience.invitationThink", .distribution, .value("lognormal(2s, 0.5)"),
          "time to answer an invitation"),
        key(
          "audience.acceptInvitation", .probability, .value(0.5),
          "chance of accepting an invitation (one that arrives while applying or seated is declined)"),
        key(
          "audience.background", .section(filled: false), .off,
          "viewers leaving the app and coming back"),
        key(
          "audience.background.every", .distribution, .required,
          "time a viewer's app stays in the foreground before the viewer leaves it (then it returns, and leaves again)"),
        key(
          "audience.background.for", .distribution, .value("exponential(30s)"),
          "time in the background before the viewer comes back"),
      ]
    ),
    (
      "Host and admins (the built-in host client)",
      [
        key(
          "host", .section(filled: false), .required,
          "the built-in host client (room owners)"),
        key(
          "host.thinkTime", .distribution, .required,
          "time a host or admin spends on one application, from taking it up to answering"),
        key(
          "host.reviewAtOnce", .wholeOrUnlimited(1...1000), .value(1),
          "how many applications one host or admin reviews at once (a person: one). Applications beyond that wait in the SDK's applicants list for a free hand (`seat.wait_for_review`); `\"unlimited\"` answers each on its own timer. With app code (`--app`) the person likewise taps accept or reject only when a hand is free, and the app's own UI picks which applicant the tap answers"
        ),
        key(
          "host.reviewOrder", .choice(ReviewOrder.allCases.map(\.rawValue)), .value("oldest"),
          "which listed application a free reviewer takes up next"),
        key(
          "host.reviewClaims", .bool, .value(false),
          "whether the app shows the staff which applications the others are reviewing: with it two reviewers never take up the same one; without it they can (the second finds it answered after its think time, or its answer fails with -2311)"
        ),
        key(
          "host.acceptProbability", .probability, .value(1),
          "chance of accepting rather than rejecting"),
        key(
          "host.rejectWhenFull", .bool, .value(true),
          "reject at once when the seat list shows no room for another guest"),
        key(
          "host.inviteEvery", .optionalDistribution, .off,
          "interval between invitations to a random viewer in the room"),
        key(
          "host.inviteTimeout", .duration(), .value("30s"),
          "the `timeout` passed to `inviteToSeat` (`\"0s\"`: none)"),
        key(
          "host.kickEvery", .optionalDistribution, .off,
          "interval between kicks of a random guest (`kickUserOutOfSeat`)"),
        key(
          "host.lockEvery", .optionalDistribution, .off,
          "interval between locking a random seat"),
        key(
          "host.lockFor", .distribution, .value("exponential(60s)"),
          "how long a locked seat stays locked"),
        key(
          "host.moveEvery", .optionalDistribution, .off,
          "interval between moving a random guest to a random seat"),
        key(
          "host.movePolicies", .list(.choice(MovePolicy.allCases.map(\.name)), nonEmpty: true),
          .value(.array(MovePolicy.allCases.map { .string($0.name) })),
          "policies a move draws from"),
        key(
          "host.endLiveAfter", .optionalDistribution, .off,
          "time from going live to ending the live (owners only)"),
      ]
    ),
    (
      "Calls (phone users)",
      [
        key(
          "calls", .section(filled: false), .off,
          "phone users making one-to-one and group calls"),
        key(
          "calls.users", .whole(2...10_000_000), .required,
          "phone users"),
        key(
          "calls.firstUser", .whole(0...10_000_000), .value(0),
          "how many phones of a larger population come before these, as `population.firstRoom` for rooms: the phones keep their identities and draws. Whom a phone dials is drawn over the phones there are, so callees change with the count. Written by `shrink`"
        ),
        key(
          "calls.dialEvery", .distribution, .value("exponential(10m)"),
          "time between a phone's dial attempts (and after each call ends)"),
        key(
          "calls.groupProbability", .probability, .value(0),
          "chance that a dial is a group call"),
        key(
          "calls.maxGroupCallees", .whole(2...8), .value(4),
          "the most callees of a group call"),
        key(
          "calls.inviteProbability", .probability, .value(0),
          "chance that the caller of a group call, once connected, invites one more phone into it (`CallStore.invite`) after `answerAfter`; the invited phone rings for the call's timeout from its invitation. `invite` is refused with -1203 outside a connected group call (the SDKs document it for group calls; a one-to-one call does not grow) and -1202 for someone already in the call or more than nine in all"
        ),
        key(
          "calls.videoProbability", .probability, .value(0.5),
          "chance that a call is video"),
        key(
          "calls.timeout", .duration(), .value("0s"),
          "the `timeout` passed to `calls()`; `\"0s\"` means the server's 30 s"),
        key(
          "calls.answerProbability", .probability, .value(0.8),
          "chance of answering rather than declining"),
        key(
          "calls.answerAfter", .distribution, .value("lognormal(4s, 0.5)"),
          "time from ringing to answering or declining"),
        key(
          "calls.talkTime", .distribution, .value("lognormal(2m, 0.7)"),
          "time in a connected call before hanging up"),
        key(
          "calls.patience", .optionalDistribution, .off,
          "how long a caller waits for an answer before cancelling"),
        key(
          "calls.offlineCallee", .choice(["ringsOut", "endsAtOnce"]), .value("ringsOut"),
          "a callee who is logged out when called: its invitation waits as an offline message and the caller rings on until the call's timeout (`noResponse`), or its part ends at once with `offline` (a one-to-one call then ends). The SDKs' documentation names the `offline` reason but not when it applies; a setting"
        ),
        key(
          "calls.beforeLogin", .choice(["refusedByServer", "refusedLocally"]), .value("refusedByServer"),
          "a `CallStore` call made before the SDK's login finished: sent, and refused by the server only if it has no login for the user by then (-1201), or refused by the SDK itself at once. The SDKs' documentation does not say; a setting (`call.valid-use` flags the app either way)"
        ),
        key(
          "calls.busyCallee", .choice(["rejectedByCallee", "rejectedByServer"]), .value("rejectedByCallee"),
          "a callee already in a call: the invitation goes out all the same and the callee's SDK declines it with `lineBusy` (one round trip later, unseen by the app), and if the app is not connected it arrives as a VoIP push the app must still report; or the server ends the callee's part at once. The SDKs' documentation names `lineBusy` but not where it is decided; a setting"
        ),
        key(
          "calls.liveCallees", .probability, .value(0),
          "chance that a dial calls a viewer of a live room instead of a phone; viewers then decline calls while applying or seated (the live holds the microphone) and otherwise talk with the microphone on"
        ),
        key(
          "calls.app", .section(filled: true), .value([:]),
          "the phone app's life: foreground, background, killed"),
        key(
          "calls.app.foreground", .optionalDistribution, .off,
          "time in the foreground before the user leaves the app; off: apps stay in the foreground unless the system kills one"
        ),
        key(
          "calls.app.away", .distribution, .value("exponential(10m)"),
          "time away (background or killed) before the user opens the app again"),
        key(
          "calls.app.suspendedLifetime", .distribution, .value("exponential(10m)"),
          "time a background app survives before the system reclaims it (an app in a call is kept)"),
        key(
          "calls.app.closeProbability", .probability, .value(0),
          "chance that leaving the app swipes it away: a caller then hangs up, a ringing callee rejects, a connected callee hangs up"
        ),
        key(
          "calls.app.coldStart", .distribution, .value("uniform(500ms, 2s)"),
          "time from launching a killed app to its code running"),
        key(
          "calls.app.cellularCallEvery", .optionalDistribution, .off,
          "time between cellular calls of the phone's user; each holds a conversation group, so a report can exceed `maximumConversationGroups`"
        ),
        key(
          "calls.app.cellularCallDuration", .distribution, .value("lognormal(3m, 0.6)"),
          "how long a cellular call lasts"),
        key(
          "calls.push", .section(filled: true), .value([:]),
          "VoIP push: certificates, delivery and the system's rules"),
        key(
          "calls.push.certificateID", .whole(0...4_294_967_295), .value(1),
          "the certificate ID the app passes to `setVOIP`; `0` makes the app skip the upload, so no push reaches it"),
        key(
          "calls.push.certificates", .objects, .value([["id": 1]]),
          "certificates in the console; `environment` is `\"production\"` (default) or `\"development\"`, `type` is `\"voip\"` (default) or `\"apns\"` (pushes fall back to an alert with no call UI)"
        ),
        key(
          "calls.push.certificates[].id", .whole(1...4_294_967_295), .required,
          "the certificate's ID in the console"),
        key(
          "calls.push.certificates[].environment", .choice(PushEnvironment.allCases.map(\.rawValue)),
          .value("production"),
          "the APNs environment the certificate is for"),
        key(
          "calls.push.certificates[].type", .choice(PushCertificateType.allCases.map(\.rawValue)), .value("voip"),
          "a VoIP certificate, or an APNs one (pushes fall back to an alert with no call UI)"),
        key(
          "calls.push.appEnvironment", .choice(PushEnvironment.allCases.map(\.rawValue)), .value("production"),
          "the APNs environment of the app build; a certificate of the other environment loses every push"),
        key(
          "calls.push.latency", .distribution, .value("lognormal(300ms, 0.6)"),
          "backend-to-phone delivery time of a VoIP push"),
        key(
          "calls.push.backendLatency", .distribution, .value("lognormal(30ms, 0.5)"),
          "call-server-to-push-backend time"),
        key(
          "calls.push.reportDeadline", .duration(minimum: .milliseconds(1)), .value("5s"),
          "time the app has to report a push before the system kills it"),
        key(
          "calls.push.reportBeforeReturn", .bool, .value(true),
          "the app must also have reported a push when its handler finishes (see below); `false` leaves only `reportDeadline` (the Tencent guide's \"within 5 seconds\")"
        ),
        key(
          "calls.push.malformedRate", .probability, .value(0),
          "chance that a push's payload is malformed: no `voip_caller_name`, or an `ext` that is not JSON (half each); the media type then reads as audio"
        ),
        key(
          "calls.push.suppressAfter", .whole(1...1000), .value(3),
          "missed reports after which the system stops delivering VoIP pushes to the app"),
        key(
          "calls.push.tokenDelay", .distribution, .value("lognormal(300ms, 0.5)"),
          "time from creating the push registry to PushKit delivering the token"),
        key(
          "calls.push.tokenLifetime", .optionalDistribution, .off,
          "time until the system replaces a device's token; pushes to the old one are lost until the app uploads the new one"
        ),
        key(
          "calls.push.duplicateRate", .probability, .value(0),
          "chance that APNs delivers a push twice (each copy has its own latency)"),
        key(
          "calls.conversations", .section(filled: true), .value([:]),
          "LiveCommunicationKit's `ConversationManager` configuration and the system UI"),
        key(
          "calls.conversations.maximumConversationGroups", .whole(1...100), .value(2),
          "`ConversationManager` limit on the conversation groups on screen (each new conversation is a group of its own until a Merge joins it to another; a cellular call holds one); a report or an outgoing start beyond it throws"
        ),
        key(
          "calls.conversations.maximumConversationsPerConversationGroup", .whole(1...100), .value(1),
          "`ConversationManager` limit on the conversations in one group: \"merge\" is offered only where two groups on screen fit in one, and a fulfilled Merge joins them (so with the default 1 the user never merges)"
        ),
        key(
          "calls.conversations.supportsVideo", .bool, .value(true),
          "`ConversationManager` configuration: with `false` the system shows a video conversation as audio (the `.video` capability is dropped from what the app reports and from what `conversations` returns)"
        ),
        key(
          "calls.conversations.actionTimeout", .duration(minimum: .milliseconds(1)), .value("30s"),
          "time a Join, End, Start or Merge waits for `fulfill()` or `fail()` before the system times it out"),
        key(
          "calls.conversations.endGrace", .duration(), .value("10s"),
          "how long a conversation may outlive its call before `conversation.ended-with-call` fires"),
        key(
          "calls.conversations.mergeActionProbability", .probability, .value(0),
          "chance that, when two conversation groups that fit in one are still on screen after the app handled a report, the user taps \"merge\": a Merge action (naming the first, and the one to merge with) the app must fulfill or fail; fulfilled, it joins them in one group. The built-in phone ends a second call's conversation at once, so it meets this only through app code that keeps both"
        ),
        key(
          "calls.conversations.startActionProbability", .probability, .value(0),
          "chance that, after a conversation ends, the user calls back from the system UI: a Start action the app must fulfill or fail"
        ),
      ]
    ),
    (
      "Devices, network, workload",
      [
        key(
          "devices", .section(filled: true), .value([:]),
          "microphone and camera"),
        key(
          "devices.openTime", .distribution, .value("lognormal(150ms, 0.3)"),
          "time for one device (microphone, then camera) to open"),
        key(
          "devices.microphoneDenied", .probability, .value(0),
          "microphone permission denied (-1105): the guest disconnects"),
        key(
          "devices.microphoneOccupied", .probability, .value(0),
          "microphone held by another app (-1106): the guest disconnects"),
        key(
          "devices.cameraDenied", .probability, .value(0),
          "camera permission denied (-1101): the guest continues audio-only"),
        key(
          "devices.cameraOccupied", .probability, .value(0),
          "camera held by another app (-1102): audio-only"),
        key(
          "devices.microphoneReopen", .choice(["occupied", "succeeds"]), .value("occupied"),
          "what opening the microphone while it is on answers: -1106, as a second user of the one microphone (a call and the live) finds it, or success with nothing changed. The SDK's documentation does not say; a setting, not a fact"
        ),
        key(
          "devices.cameraReopen", .choice(["occupied", "succeeds"]), .value("succeeds"),
          "the same for the camera (-1102)"),
        key(
          "network", .section(filled: true), .value([:]),
          "client-to-server messages"),
        key(
          "network.clientServer", .distribution, .value("lognormal(40ms, 0.4)"),
          "one-way latency of every message between a client and the server; each client's channel is ordered (FIFO), unless `network.reorder` holds a message back"
        ),
        key(
          "network.requestTimeout", .duration(minimum: .milliseconds(1)), .value("10s"),
          "how long the SDK waits for the answer to a request before it reports -1 (`failed`), whether or not the server carried it out (a lost request or answer, a vanishing outage, a request or answer held up past it by a partition or a long delay: a request held so is not delivered after the SDK gave up, an answer held so reaches nobody). The SDKs' documentation gives no figure; a setting, not a fact"
        ),
        key(
          "network.ties", .choice(["fifo", "seeded", "drawn"]),
          .derived("`\"fifo\"`; `\"drawn\"` under `faults: \"swarm\"`"),
          "deliveries to different users due at one instant: in the order they were sent, in an order the seed picks (each user's deliveries a constant 0 to 999 ns late; each channel keeps its order), or `\"drawn\"`: either, as the seed draws (half the seeds each)"
        ),
        key(
          "network.pct", .wholeOrDrawn(0...64), .derived("0; `\"drawn\"` under `faults: \"swarm\"`"),
          "PCT-style depth: this many change points at instants drawn before the faults heal, each holding one drawn user's deliveries back behind everyone else's (`sweep --pct D`); `\"drawn\"`: the seed picks 0 (half the seeds), 1, 2 or 3"
        ),
        key(
          "network.pctWindow", .duration(minimum: .milliseconds(1)), .value("5s"),
          "how long a change point holds its user back"),
        key(
          "network.pctDelay", .duration(minimum: .nanoseconds(1)), .value("200ms"),
          "how late that user's deliveries come meanwhile (its channel keeps its order)"),
        key(
          "workload", .section(filled: true), .value([:]),
          "room-wide moments"),
        key(
          "workload.flashCrowd", .section(filled: false), .off,
          "the host opens the seats and many apply at once"),
        key(
          "workload.flashCrowd.at", .duration(), .required,
          "when the host opens the seats"),
        key(
          "workload.flashCrowd.fraction", .probability, .required,
          "share of the viewers then in the room (and idle) who tap \"apply\""),
        key(
          "workload.flashCrowd.within", .duration(), .value("2s"),
          "window over which they tap, uniformly"),
        key(
          "workload.flashCrowd.lockSeatsUntilOpen", .bool, .value(true),
          "every seat is locked from the start until `at`"),
        key(
          "workload.coHosting", .section(filled: false), .off,
          "pairs of rooms co-hosting"),
        key(
          "workload.coHosting.fraction", .probability, .required,
          "share of room pairs (0 with 1, 2 with 3, …) that co-host"),
        key(
          "workload.coHosting.after", .distribution, .required,
          "time from the start to connecting"),
        key(
          "workload.coHosting.duration", .distribution, .required,
          "how long a co-hosting session lasts"),
      ]
    ),
    (
      "Server capacity",
      [
        key(
          "server", .section(filled: true), .value([:]),
          "server capacity per service"),
        key(
          "server.<service>", .section(filled: true), .value([:]),
          "one service's capacity: `seats`, `login`, `calls` or `push`"),
        key(
          "server.<service>.workers", .wholeOrUnlimited(1...1_000_000), .value("unlimited"),
          "requests served at once"),
        key(
          "server.<service>.serviceTime", .distribution, .value("0ms"),
          "time a worker takes per request (drawn from the requesting user's own stream)"),
        key(
          "server.<service>.queueLimit", .wholeOrUnlimited(0...100_000_000), .value("unlimited"),
          "requests that may wait for a worker; beyond it the request fails at once with -1 (the SDK's generic error), and the SDK's own timeouts and the clients' retries follow"
        ),
        key(
          "server.<service>.ratePerUser", .whole(1...1_000_000), .off,
          "requests one user may make per second (fixed one-second windows); beyond it the request fails with -2, `ERR_FREQ_LIMIT` (\"request is limited, please try again later\") in the TUIRoomEngine error table"
        ),
        key(
          "server.<service>.ratePerRoom", .whole(1...100_000_000), .off,
          "requests per second from the users of one room, likewise"),
        key(
          "server.<service>.ratePerApp", .whole(1...1_000_000_000), .off,
          "requests per second from the whole application, likewise"),
      ]
    ),
    (
      "Room messaging: seat lists to every viewer",
      [
        key(
          "server.messaging", .section(filled: true), .value([:]),
          "room messaging: seat lists to every viewer"),
        key(
          "server.messaging.workers", .wholeOrUnlimited(1...1_000_000), .value("unlimited"),
          "broadcasts sent at once"),
        key(
          "server.messaging.serviceTime", .distribution, .value("0ms"),
          "the fixed time of one broadcast (drawn from the room's own stream)"),
        key(
          "server.messaging.perRecipient", .duration(), .value("0ms"),
          "added to a broadcast's time for each member of the room"),
        key(
          "server.messaging.ratePerRoom", .whole(1...100_000_000), .off,
          "broadcasts per room per second; changes beyond it wait for the next second and merge"),
      ]
    ),
  ]

}
