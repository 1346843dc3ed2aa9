/* lwt_bench_clock.c: the monotonic clock for lwt_bench.ml.
 *
 * Debian 12 ships no Mtime package for OCaml 4.13, and Unix.gettimeofday
 * follows the wall clock (NTP may step it mid-run). This one-function C binding
 * reads CLOCK_MONOTONIC instead and returns nanoseconds as an OCaml int
 * (63 bits: enough for centuries of uptime). It allocates nothing and raises
 * nothing, so the OCaml side declares it [@@noalloc]: a call costs about as
 * much as the vDSO read itself, and it is made only twice per timed run. */
#define _POSIX_C_SOURCE 199309L
#include <time.h>

#include <caml/mlvalues.h>

value skein_peer_now_ns(value unit)
{
    (void)unit;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return Val_long((long)ts.tv_sec * 1000000000L + (long)ts.tv_nsec);
}
