/**
 * The few distribution functions the interval and test modules need, in plain TypeScript: the standard normal
 * CDF and quantile, Student's t CDF and quantile, and the beta CDF (regularized incomplete beta) and quantile.
 * Accurate to about 1e-12 (checked against SciPy in `tests/stats_design_test.ts`).
 * @module
 */

/** Lanczos coefficients (g = 7, n = 9), as in Numerical Recipes and many libraries. */
const LANCZOS = [
  0.99999999999980993,
  676.5203681218851,
  -1259.1392167224028,
  771.32342877765313,
  -176.61502916214059,
  12.507343278686905,
  -0.13857109526572012,
  9.9843695780195716e-6,
  1.5056327351493116e-7,
];

/** Returns ln Γ(x) for x > 0 (Lanczos approximation, relative error about 1e-15). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0];
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i] / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Iterations and tolerance of the series and continued fractions below. */
const MAX_ITERATIONS = 10000;
const EPSILON = 1e-16;
const TINY = 1e-300;

/** Returns the regularized lower incomplete gamma P(a, x) by its series (converges fast for x < a + 1). */
function gammaSeries(a: number, x: number): number {
  let term = 1 / a, sum = term;
  for (let n = 1; n < MAX_ITERATIONS; n++) {
    term *= x / (a + n);
    sum += term;
    if (Math.abs(term) < Math.abs(sum) * EPSILON) break;
  }
  return sum * Math.exp(-x + a * Math.log(x) - logGamma(a));
}

/** Returns the regularized upper incomplete gamma Q(a, x) by its continued fraction (for x ≥ a + 1; Lentz). */
function gammaContinuedFraction(a: number, x: number): number {
  let b = x + 1 - a, c = 1 / TINY, d = 1 / b, h = d;
  for (let i = 1; i < MAX_ITERATIONS; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return Math.exp(-x + a * Math.log(x) - logGamma(a)) * h;
}

/** Returns the regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a) for a > 0, x ≥ 0. */
function upperGamma(a: number, x: number): number {
  if (x <= 0) return 1;
  return x < a + 1 ? 1 - gammaSeries(a, x) : gammaContinuedFraction(a, x);
}

/** Returns the regularized lower incomplete gamma function P(a, x) for a > 0, x ≥ 0. */
function lowerGamma(a: number, x: number): number {
  if (x <= 0) return 0;
  return x < a + 1 ? gammaSeries(a, x) : 1 - gammaContinuedFraction(a, x);
}

/** Returns Φ(x), the standard normal CDF (via erfc(y) = Q(½, y²), accurate in both tails). */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const y2 = (x * x) / 2;
  return x < 0 ? 0.5 * upperGamma(0.5, y2) : 0.5 + 0.5 * lowerGamma(0.5, y2);
}

/** Returns the standard normal density at x. */
function normalDensity(x: number): number {
  return Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
}

/**
 * Returns Φ⁻¹(p), the standard normal quantile, for 0 < p < 1 (±Infinity at 0 and 1): a logistic-type start
 * refined by Halley steps on {@linkcode normalCdf} until it no longer moves.
 */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  if (p > 0.5) return -normalQuantile(1 - p);
  // Start: the tail approximation x ≈ −√(−2 ln p) corrected (Abramowitz & Stegun 26.2.23, |error| < 4.5e-4).
  const t = Math.sqrt(-2 * Math.log(p));
  let x = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
      (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t));
  for (let i = 0; i < 50; i++) {
    const error = normalCdf(x) - p;
    const slope = normalDensity(x);
    if (slope === 0) break;
    const u = error / slope;
    const step = u / (1 + (x * u) / 2); // Halley: the normal density's log-derivative is −x
    x -= step;
    if (Math.abs(step) <= 1e-15 * Math.max(1, Math.abs(x))) break;
  }
  return x;
}

/** Returns the continued fraction of the incomplete beta function (Numerical Recipes' betacf, Lentz). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const qab = a + b, qap = a + 1, qam = a - 1;
  let c = 1, d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m < MAX_ITERATIONS; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return h;
}

/** Returns the regularized incomplete beta function I_x(a, b), the Beta(a, b) CDF at x, for a, b > 0. */
export function betaCdf(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(
    logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x),
  );
  return x < (a + 1) / (a + b + 2)
    ? (front * betaContinuedFraction(x, a, b)) / a
    : 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}

/**
 * A first guess at the p-quantile of Beta(a, b) for {@linkcode betaQuantileSearch}: for a, b ≥ 1 from the
 * normal quantile with a skewness correction, else from the two power-law tails of the CDF, taken in logarithms
 * so that a tiny p does not underflow (the approximations of Numerical Recipes' `invbetai`, Press et al. 2007,
 * §6.14.11); in (0, 1).
 */
function betaQuantileGuess(p: number, a: number, b: number): number {
  let x: number;
  if (a >= 1 && b >= 1) {
    const z = normalQuantile(p);
    const l = (z * z - 3) / 6;
    const h = 2 / (1 / (2 * a - 1) + 1 / (2 * b - 1));
    const w = (z * Math.sqrt(l + h)) / h - (1 / (2 * b - 1) - 1 / (2 * a - 1)) * (l + 5 / 6 - 2 / (3 * h));
    x = a / (a + b * Math.exp(2 * w));
  } else {
    const t = Math.exp(a * Math.log(a / (a + b))) / a;
    const u = Math.exp(b * Math.log(b / (a + b))) / b;
    const w = t + u;
    x = p < t / w ? Math.exp(Math.log(a * w * p) / a) : -Math.expm1(Math.log(b * w * (1 - p)) / b);
  }
  if (Number.isNaN(x)) return a / (a + b);
  return Math.min(Math.max(x, Number.MIN_VALUE), 1 - Number.EPSILON / 2);
}

/** What {@linkcode betaQuantileSearch} found: the quantile, and how often it evaluated the CDF for it. */
export interface BetaQuantileSearch {
  /** The p-quantile. */
  x: number;
  /** Evaluations of {@linkcode betaCdf} it took. */
  evaluations: number;
}

/**
 * Finds the p-quantile of Beta(a, b) (a, b > 0) to double precision: Newton steps on {@linkcode betaCdf} from
 * {@linkcode betaQuantileGuess}, inside a bracket that each evaluation narrows, halved where a step would leave
 * it; done once a step moves less than two doubles (near the root each step squares the error). At most 200
 * evaluations.
 */
export function betaQuantileSearch(p: number, a: number, b: number): BetaQuantileSearch {
  if (!(p >= 0 && p <= 1)) return { x: NaN, evaluations: 0 };
  if (p === 0 || p === 1) return { x: p, evaluations: 0 };
  const logBeta = logGamma(a) + logGamma(b) - logGamma(a + b);
  let lo = 0, hi = 1;
  let x = betaQuantileGuess(p, a, b);
  let evaluations = 0;
  while (evaluations < 200) {
    const error = betaCdf(x, a, b) - p;
    evaluations++;
    if (error === 0) break;
    if (error < 0) lo = x;
    else hi = x;
    const density = Math.exp((a - 1) * Math.log(x) + (b - 1) * Math.log1p(-x) - logBeta);
    const next = x - error / density;
    const inside = next > lo && next < hi;
    // A step this small ends the search wherever it points (x is then an end of the bracket).
    if (Math.abs(next - x) <= 2 * Number.EPSILON * x) return { x: inside ? next : x, evaluations };
    const mid = (lo + hi) / 2;
    // The bracket is two neighbouring doubles: x is one of them.
    if (!inside && (mid === lo || mid === hi)) break;
    x = inside ? next : mid;
  }
  return { x, evaluations };
}

/**
 * Returns the p-quantile of Beta(a, b) (a, b > 0) to double precision ({@linkcode betaQuantileSearch}: 4–21
 * evaluations of the CDF, most often 8–10, where bisection took ~55), for the Clopper–Pearson interval of every
 * rate and the t quantiles read through it.
 */
export function betaQuantile(p: number, a: number, b: number): number {
  return betaQuantileSearch(p, a, b).x;
}

/** Returns the CDF of Student's t with `df` > 0 degrees of freedom at t (from I_{df/(df+t²)}(df/2, ½)). */
export function tCdf(t: number, df: number): number {
  if (Number.isNaN(t)) return NaN;
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0;
  const tail = 0.5 * betaCdf(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

/** Returns the p-quantile of Student's t with `df` > 0 degrees of freedom (from the beta quantile). */
export function tQuantile(p: number, df: number): number {
  if (!(p >= 0 && p <= 1)) return NaN;
  if (p === 0.5) return 0;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const tail = 2 * Math.min(p, 1 - p); // P(|T| > t)
  const x = betaQuantile(tail, df / 2, 0.5); // x = df / (df + t²)
  const t = Math.sqrt((df * (1 - x)) / x);
  return p > 0.5 ? t : -t;
}
