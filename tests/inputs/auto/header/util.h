static inline void clear(double *v, int n) {
  int i;
  for (i = 0; i < n; i++)
    v[i] = 0.0;
}
