#include "graph/thread_placement.h"

#include <sched.h>

namespace pt {

void place_beside_caller(pthread_t thread) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) return;
  const int here = sched_getcpu();
  if (here < 0 || here >= CPU_SETSIZE || !CPU_ISSET(here, &allowed)) return;
  cpu_set_t elsewhere = allowed;
  CPU_CLR(here, &elsewhere);
  // The first call moves the queued thread off this core; the second widens
  // its mask again without moving it (its core stays allowed).
  if (pthread_setaffinity_np(thread, sizeof elsewhere, &elsewhere) == 0) {
    pthread_setaffinity_np(thread, sizeof allowed, &allowed);
  }
}

}  // namespace pt
