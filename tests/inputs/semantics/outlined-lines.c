/* The C target runs a SCoP's own lines, where tiles do not pay, from a function of their own
   (codegen/src/outline.rs): what the lines name must mean the same there. Scalars written and
   read after the SCoP, iterators of several integer types, a function parameter used as an
   accumulator, a pointer, globals, two SCoPs in one
   function whose head spans two lines, a function with a local array (by pointer); and
   functions whose lines must stay in place (a local enum, a head after a comment's end, a
   `register` iterator). */
#include <stdio.h>

#define N 40

double g_sum;
double g_arr[N];

static void
two_scops(int n, int m, double scale, double A[N][N], double *p, double acc, double *out)
{
  long long i;
  unsigned char j = 3;
  double s = 0.5;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      A[i][j] = A[i][j] * scale + i - j;
      s += A[i][j];
    }
  for (i = 0; i < n; i++)
    acc = acc * 0.5 + p[i];
#pragma endscop
  out[0] = s + acc + (double)i + j;
#pragma scop
  for (i = 0; i < n; i++) {
    g_arr[i] += A[i][0];
    g_sum += g_arr[i];
  }
#pragma endscop
  out[1] = g_sum + (double)i;
}

static double with_temporary(int n, double B[N][N]) {
  int i, k;
  double t;
#pragma scop
  for (i = 0; i < n; i++) {
    t = 0.0;
    for (k = 0; k < n; k++)
      t += B[i][k];
    B[i][i] = t;
  }
#pragma endscop
  return (double)i + B[n - 1][n - 1];
}

static double local_array(int n) {
  double z[N];
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    z[i] = i * 0.25;
  for (i = 1; i < n; i++)
    z[i] += z[i - 1];
#pragma endscop
  return z[n - 1] + i;
}

static double local_enum(int n, double C[N]) {
  enum { LOCAL_ONE = 1 };
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    C[i] = C[i] / 3 + i;
#pragma endscop
  return C[n - 1] + i + LOCAL_ONE;
}

/* A comment that ends on the line of the function's head: the function of the lines would
   go inside it. */ static double after_comment(int n, double C[N]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    C[i] = C[i] * 0.5 + 3;
#pragma endscop
  return C[n - 1] + i;
}

static double register_iterator(int n, double C[N]) {
  register int i;
#pragma scop
  for (i = 0; i < n; i++)
    C[i] = C[i] * 2 + 1;
#pragma endscop
  return C[n - 1] + i;
}

int main(void) {
  static double A[N][N], B[N][N], C[N], p[N];
  double out[2];
  for (int i = 0; i < N; i++) {
    p[i] = 1.0 / (i + 1);
    C[i] = i;
    for (int j = 0; j < N; j++) {
      A[i][j] = (i * j) % 7;
      B[i][j] = (i + 2 * j) % 5;
    }
  }
  int sizes[][2] = {{N, N}, {0, 5}, {7, 3}, {N, 1}};
  for (int s = 0; s < 4; s++) {
    int n = sizes[s][0], m = sizes[s][1];
    two_scops(n, m, 1.5, A, p, 2.0, out);
    printf("%.6f %.6f\n", out[0], out[1]);
  }
  printf("%.6f\n", with_temporary(N, B));
  printf("%.6f\n", with_temporary(5, B));
  printf("%.6f\n", local_array(N));
  printf("%.6f\n", local_enum(N, C));
  printf("%.6f\n", after_comment(N, C));
  printf("%.6f\n", register_iterator(N, C));
  return 0;
}
