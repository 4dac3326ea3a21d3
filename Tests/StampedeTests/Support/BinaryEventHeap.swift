import SimKernel

/// The kernel's former queue, kept as the reference the radix queue is checked against: a binary
/// min-heap of pending events ordered by `(time, seq)`, every entry taking the next sequence number.
struct BinaryEventHeap {
  var storage: [QueueEntry] = []
  var nextSeq: UInt64 = 0

  var count: Int { storage.count }

  mutating func push(time: Int64, _ event: Event) {
    let entry = QueueEntry(time: time, seq: nextSeq, event: event)
    nextSeq += 1
    storage.append(entry)
    siftUp(entry, from: storage.count - 1)
  }

  mutating func siftUp(_ entry: QueueEntry, from start: Int) {
    var hole = start
    while hole > 0 {
      let parent = (hole - 1) / 2
      if !entry.runsBefore(storage[parent]) { break }
      storage[hole] = storage[parent]
      hole = parent
    }
    storage[hole] = entry
  }

  mutating func popFirst() -> QueueEntry? {
    guard let last = storage.popLast() else { return nil }
    if storage.isEmpty { return last }
    let top = storage[0]
    // Move the hole at the root down to a leaf, then sift the last entry up from there.
    var hole = 0
    var child = 1
    while child < storage.count {
      if child + 1 < storage.count && storage[child + 1].runsBefore(storage[child]) { child += 1 }
      storage[hole] = storage[child]
      hole = child
      child = 2 * hole + 1
    }
    siftUp(last, from: hole)
    return top
  }
}
