/* (q) Control: spinpark.pml with an owner that keeps its role when it
 * finds STARVING cleared (no `w->starving_owner && !(v & _SP_STARVING)`
 * test in sp_spin's loop).  Must pass: a 2 always has STARVING, so the
 * role matters only once a later owner's STARVING is in the word, and
 * there the code's owner keeps its role too if it did not read the word
 * in between (README.md, finding 3).  Nothing checked depends on the
 * drop of the role. */
#define OWNER_KEEPS_ROLE 1
#include "spinpark.pml"
