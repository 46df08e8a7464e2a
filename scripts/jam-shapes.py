# Random programs of jammed-rows shape (codegen/src/jam.rs) for scripts/jam-shapes.sh: one loop
# over rows whose body draws row statements and inner loops of chains, columns and statements
# the shape rule must refuse (cross-row reads, one shared element, elements moving along the
# inner loop, triangular inner loops). Prints the program of seed ARGV[1].
import random, sys
def program(seed):
    r = random.Random(seed)
    N = r.choice([13, 29, 37, 40])
    chains = ["tmp[i] = tmp[i] + A[i][j] * x[j];", "q[i] = q[i] + A[j][i] * y[j];",
              "q[i] = q[i] * 0.5 + B[i][j];", "tmp[i] = tmp[i] - A[i][j] * q[i];"]
    columns = ["y[j] = y[j] + A[i][j] * tmp[i];", "s[j] = s[j] + B[i][j] * x[i];",
               "s[j] = s[j] * 0.75 + A[j][i];"]
    odd = ["y[0] = y[0] + A[i][j];", "x[i] = x[i] + A[i][j] * x[j];",
           "tmp[i + 1] = tmp[i] + A[i][j];", "y[j] = y[j] + y[j + 1] * 0.5;",
           "A[i][j] = A[i][j] + x[j];", "tmp[j] = tmp[j] + x[i];", "s[j] = tmp[i] + s[j];",
           "q[i] = q[i] + s[j];"]
    rows = ["tmp[i] = 0.0;", "q[i] = x[i] * 0.5;", "tmp[i] = tmp[i] * 0.5 + q[i];",
            "x[i] = tmp[i] + 1.0;", "y[i] = 0.25 * y[i];"]
    items = []
    for _ in range(r.randint(1, 3)):
        if r.random() < 0.35:
            items.append("    " + r.choice(rows))
        else:
            bound = "j < i" if r.random() < 0.1 else "j < N - 1"
            stmts = []
            for _ in range(r.randint(1, 2)):
                p = r.random()
                stmts.append(r.choice(chains if p < 0.5 else columns if p < 0.85 else odd))
            items.append("    for (j = 0; %s; j++) {\n      %s\n    }" % (bound, "\n      ".join(stmts)))
    ub = "N - 1" if any("[i + 1]" in it or "[j + 1]" in it for it in items) else "N"
    body = "\n".join(items)
    return f"""#include <stdio.h>
#define N {N}
static double A[N][N], B[N][N], x[N], y[N], tmp[N], q[N], s[N];
static void kernel(void) {{
  int i, j;
#pragma scop
  for (i = 0; i < {ub}; i++) {{
{body}
  }}
#pragma endscop
}}
int main(void) {{
  for (int a = 0; a < N; a++) {{
    x[a] = (a % 7) * 0.3 + 0.1; y[a] = (a % 5) * 0.2; tmp[a] = a * 0.01; q[a] = 1.0 / (a + 1); s[a] = (a % 3) * 0.7;
    for (int b = 0; b < N; b++) {{ A[a][b] = ((a * b) % 11) * 0.1 + 0.05; B[a][b] = ((a + 2 * b) % 13) * 0.07; }}
  }}
  kernel();
  for (int a = 0; a < N; a++) {{
    printf("%a %a %a %a %a\\n", x[a], y[a], tmp[a], q[a], s[a]);
    for (int b = 0; b < N; b++) printf("%a %a\\n", A[a][b], B[a][b]);
  }}
  return 0;
}}
"""
print(program(int(sys.argv[1])))
