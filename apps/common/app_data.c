#include "app_data.h"

#include <math.h>

double app_normal(uint64_t index, uint64_t stream) {
  double u = app_uniform(index, 2 * stream), v = app_uniform(index, 2 * stream + 1);
  return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}
