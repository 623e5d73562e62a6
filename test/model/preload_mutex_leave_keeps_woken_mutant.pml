/* (8) preload_mutex.pml -DTIMED with a timed-out sleeper that leaves the
 * sleepers' count without clearing WOKEN (word_sleep's last loop).  Must
 * be rejected: by the check of the word at the end of the run, which
 * finds WOKEN left on a free mutex with no sleeper counted.  It strands
 * no sleeper: with -DNO_END_CHECK it passes safety and liveness
 * (README.md, "Results and findings"). */
#define TIMED 1
#define LEAVE_KEEPS_WOKEN 1
#include "preload_mutex.pml"
