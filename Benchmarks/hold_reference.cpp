// Reference for `stampede bench kernel`: the same hold-model loop as Stampede's kernel, on
// std::priority_queue. Same 24-byte entry, same (time, seq) order, same xoshiro256** stream, same
// fdlibm-style log for the exponential increment, same rolling trace hash per executed event.
//
// Build: g++ -O2 -std=c++17 -o hold_reference hold_reference.cpp
// Usage: hold_reference PENDING HOLDS SEED
// Prints: ops_per_second checksum
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <queue>
#include <vector>

struct Entry {
  int64_t time;
  uint64_t order;  // seq << 16 | kind
  uint32_t a, b;
};
struct Later {
  bool operator()(const Entry& x, const Entry& y) const {
    return x.time > y.time || (x.time == y.time && x.order > y.order);
  }
};

struct Xoshiro {
  uint64_t s[4];
  static uint64_t splitmix(uint64_t& st) {
    st += 0x9E3779B97F4A7C15ull;
    uint64_t z = st;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  explicit Xoshiro(uint64_t seed) {
    uint64_t st = seed;
    for (auto& w : s) w = splitmix(st);
  }
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t next() {
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45);
    return r;
  }
  double open_unit() { return double((next() >> 11) + 1) * 0x1p-53; }
};

static inline int32_t hi(double x) { uint64_t b; memcpy(&b, &x, 8); return int32_t(int64_t(b) >> 32); }
static inline uint32_t lo(double x) { uint64_t b; memcpy(&b, &x, 8); return uint32_t(b); }
static inline double with_hi(double x, int32_t h) {
  uint64_t b = (uint64_t(uint32_t(h)) << 32) | lo(x); double r; memcpy(&r, &b, 8); return r;
}
// fdlibm e_log.c, for positive normal inputs (all the loop produces).
static double portable_log(double x) {
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01,
               Lg3 = 2.857142874366239149e-01, Lg4 = 2.222219843214978396e-01,
               Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01,
               Lg7 = 1.479819860511658591e-01;
  int32_t hx = hi(x), k = 0;
  k += (hx >> 20) - 1023;
  hx &= 0x000fffff;
  int32_t i = (hx + 0x95f64) & 0x100000;
  x = with_hi(x, hx | (i ^ 0x3ff00000));
  k += (i >> 20);
  double f = x - 1.0, dk = double(k);
  if ((0x000fffff & (2 + hx)) < 3) {
    if (f == 0) return k == 0 ? 0 : dk * ln2_hi + dk * ln2_lo;
    double R = f * f * (0.5 - 0.33333333333333333 * f);
    return k == 0 ? f - R : dk * ln2_hi - ((R - dk * ln2_lo) - f);
  }
  double s = f / (2.0 + f), z = s * s;
  i = hx - 0x6147a;
  double w = z * z;
  int32_t j = 0x6b851 - hx;
  double t1 = w * (Lg2 + w * (Lg4 + w * Lg6)), t2 = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7)));
  i |= j;
  double R = t2 + t1;
  if (i > 0) {
    double hfsq = 0.5 * f * f;
    return k == 0 ? f - (hfsq - s * (hfsq + R)) : dk * ln2_hi - ((hfsq - (s * (hfsq + R) + dk * ln2_lo)) - f);
  }
  return k == 0 ? f - s * (f - R) : dk * ln2_hi - ((s * (f - R) - dk * ln2_lo) - f);
}

struct Hash {
  uint64_t v = 0x6A09E667F3BCC908ull;
  void mix(uint64_t w) {
    uint64_t h = (v ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    v = h * 0xBF58476D1CE4E5B9ull;
  }
  void add(int64_t t, uint16_t kind, uint32_t a, uint32_t b) {
    mix(uint64_t(t));
    mix((uint64_t(kind) << 48) ^ (uint64_t(a) << 16) ^ (uint64_t(b) * 0xD6E8FEB86659FD93ull));
  }
};

int main(int argc, char** argv) {
  if (argc != 4) { fprintf(stderr, "usage: %s PENDING HOLDS SEED\n", argv[0]); return 2; }
  const long pending = atol(argv[1]), holds = atol(argv[2]);
  Xoshiro rng(strtoull(argv[3], nullptr, 0));
  const double mean = 1e6;  // 1 ms in nanoseconds
  std::vector<Entry> storage;
  storage.reserve(pending + 1);
  std::priority_queue<Entry, std::vector<Entry>, Later> q(Later(), std::move(storage));
  uint64_t seq = 0;
  for (long i = 0; i < pending; i++) {
    int64_t t = int64_t(std::round(-mean * portable_log(rng.open_unit())));
    q.push(Entry{t, (seq++ << 16) | 1, uint32_t(i), 0});
  }
  Hash hash;
  auto start = std::chrono::steady_clock::now();
  for (long m = 0; m < holds; m++) {
    Entry e = q.top();
    q.pop();
    hash.add(e.time, uint16_t(e.order & 0xffff), e.a, e.b);
    int64_t t = e.time + int64_t(std::round(-mean * portable_log(rng.open_unit())));
    q.push(Entry{t, (seq++ << 16) | 1, e.a, e.b + 1});
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  printf("%.0f %016llx\n", double(holds) / secs, (unsigned long long)hash.v);
  return 0;
}
