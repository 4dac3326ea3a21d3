extension BenchCommand {
  /// `stampede help bench`.
  static let help = """
    stampede bench [kernel|stack|sweep|faults|apps|seats|catch|all] [options]

    kernel  The hold-model benchmark: N pending events, then M times pop the earliest and push a
            successor at now + an exponential increment. The identical loop is compiled from
            Benchmarks/hold_reference.cpp with g++ -O2 over std::priority_queue and run in the same
            invocation; equal trace hashes prove the two loops did the same work.
    stack   profiles/seat-rush.json5 scaled to 1,000 rooms of 100 viewers for one simulated hour,
            then the kernel's hold loop at the stack run's mean queue size for as many events, in
            the same process. Targets: stack events/s >= 0.5x kernel holds/s; peak heap <= 2 KiB
            per audience member (from jemalloc). Then the call-heavy variant: profiles/call-storm.json5
            with 100,000 phones (callers and callees) for the same duration, against the kernel the
            same way. Targets: >= 0.3x kernel; peak heap <= 1 KiB per phone user. Each variant
            is also compared with the C++ binary-heap reference (as for kernel) running the same
            hold loop at the same queue size: the kernel the targets were first set against.
    sweep   seeds 1..16 of profiles/seat-rush.json5 with one job and with --jobs J (default: all
            cores, at least 2), alternating; reports the throughput of each and the speed-up
            (target: >= 1.6x with 2 jobs on 2 cores).
    faults  profiles/nightly-chaos.json5 with its faults on and off, seed by seed over 16 seeds
            (alternating, so both sides see the same machine); reports each side's events/s, the
            ratio (target: >= 0.8x), the fault kinds that fired and the violations.
    apps    registered app code (--app NAME) as the virtual users against the built-in clients on
            one profile (--profile FILE, default profiles/seat-rush.json5; --seed N), best of
            --repeat runs each. Reports events/s of both, their ratio (target: >= 0.2x) and peak
            heap per virtual user of the app run (target: <= 16 KiB). Runs in the executable that
            registers the app (stampede-examples bench apps --app examples).
    seats   the capacity question as a queue: profiles/bench-mmcc.json5 (200 rooms of 720 viewers,
            one application each over an hour, 6 seats held exponential(20s), a host thinking
            exponential(500ms), 40 ms network). Reports applications answered per wall second (in
            the event loop and for the whole run), events per application, events/s and the
            stack/kernel and stack/binary-heap ratios at the same mean queue size; with
            --instructions, the instructions the live world's event loop executes (callgrind:
            exact for the same binary; the kernel loop run for the ratio is left out), per event
            and per application.
    catch   how soon and how often known mistakes are caught: every registered app suite with a
            planted mistake (its summary starts with "wrong:"), on --profile (default
            profiles/smoke.json5), and every mistake of the built-in clients' catalogue, on
            --mistakes-profile (default profiles/mistakes.json5), each over --seeds (default 1..20)
            as a plain sweep and with --explore, --jobs at a time. Prints the first seed that
            caught each and the share of seeds that did (an invariant violated; a failed
            threshold does not count). Runs in the executable that registers the apps
            (stampede-examples bench catch).
    all     kernel, stack, sweep and faults (the default is kernel).

    Options:
      --json            print {"kernel": [...], "stack": {eventsPerSecond, kernelOpsPerSecond, ratio,
                        population, audience, peakMemoryBytes, bytesPerAudienceMember, events,
                        meanPending, traceHash, violations, phones, bytesPerUser,
                        referenceOpsPerSecond, referenceRatio}, "calls": {...},
                        "sweep": {...}}
      --repeat R        repeats per measurement, keeping the best (default: 3; 5 for stack)

    Kernel options:
      --pending LIST    pending-event counts (default: 1000,100000,1000000)
      --holds M         holds per measurement (default: 10000000)

    Reference options (kernel, stack, seats):
      --no-reference    leave out the C++ binary heap (when no C++ compiler is available)
      --reference FILE  the reference source (default: found from the working folder)

    Stack options:
      --profile FILE    the profile to scale (default: profiles/seat-rush.json5)
      --rooms N         rooms (default: 1000)
      --audience N      viewers per room (default: 100)
      --duration D      simulated time (default: 1h)
      --callers N       phones in the call-heavy variant (default: 100000; 0 skips it)
      --no-checking-cost  skip the runs with the checkers off (which measure what checking costs)
      --calls-profile F the call profile to scale (default: profiles/call-storm.json5)

    Seats options:
      --profile FILE    the profile (default: profiles/bench-mmcc.json5)
      --instructions    also count instructions under valgrind's callgrind (about a minute)
      --threads N       also run the whole question as room shards on N threads (run --threads),
                        against the same shards on one thread, alternating: applications per wall
                        second, the speed-up, and whether both gave the same answers

    Faults options:
      --chaos-profile F the profile to run (default: profiles/nightly-chaos.json5)
      --seeds N         seeds per side, from the profile's seed (default: 16)
    """
}
