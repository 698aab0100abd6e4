/**
 * Small dense linear algebra for the fit: solving Newton systems and inverting information matrices
 * (row-major Float64Arrays, Gauss–Jordan with partial pivoting).
 * @module
 */

/**
 * Solves `m x = b` for the leading `size` × `size` block of `m` (row stride `stride`); `null` when singular.
 */
export function solve(
  m: Float64Array,
  b: ArrayLike<number>,
  size: number,
  stride = size,
): Float64Array | null {
  const a = new Float64Array(size * size);
  for (let i = 0; i < size; i++) for (let j = 0; j < size; j++) a[i * size + j] = m[i * stride + j];
  const x = new Float64Array(size);
  for (let i = 0; i < size; i++) x[i] = b[i];
  for (let col = 0; col < size; col++) {
    let pivot = col;
    for (let row = col + 1; row < size; row++) {
      if (Math.abs(a[row * size + col]) > Math.abs(a[pivot * size + col])) pivot = row;
    }
    if (!(Math.abs(a[pivot * size + col]) > 1e-300)) return null;
    if (pivot !== col) {
      for (let j = 0; j < size; j++) {
        const t = a[col * size + j];
        a[col * size + j] = a[pivot * size + j];
        a[pivot * size + j] = t;
      }
      const t = x[col];
      x[col] = x[pivot];
      x[pivot] = t;
    }
    for (let row = col + 1; row < size; row++) {
      const factor = a[row * size + col] / a[col * size + col];
      if (factor === 0) continue;
      for (let j = col; j < size; j++) a[row * size + j] -= factor * a[col * size + j];
      x[row] -= factor * x[col];
    }
  }
  for (let row = size - 1; row >= 0; row--) {
    let sum = x[row];
    for (let j = row + 1; j < size; j++) sum -= a[row * size + j] * x[j];
    x[row] = sum / a[row * size + row];
  }
  return x;
}

/** Returns the inverse of the `size` × `size` matrix `m`, or `null` when it is singular. */
export function invert(m: Float64Array, size: number): Float64Array | null {
  const a = Float64Array.from(m);
  const inv = new Float64Array(size * size);
  for (let i = 0; i < size; i++) inv[i * size + i] = 1;
  for (let col = 0; col < size; col++) {
    let pivot = col;
    for (let row = col + 1; row < size; row++) {
      if (Math.abs(a[row * size + col]) > Math.abs(a[pivot * size + col])) pivot = row;
    }
    const diagonal = a[pivot * size + col];
    if (!(Math.abs(diagonal) > 1e-300)) return null;
    if (pivot !== col) {
      for (let j = 0; j < size; j++) {
        let t = a[col * size + j];
        a[col * size + j] = a[pivot * size + j];
        a[pivot * size + j] = t;
        t = inv[col * size + j];
        inv[col * size + j] = inv[pivot * size + j];
        inv[pivot * size + j] = t;
      }
    }
    for (let j = 0; j < size; j++) {
      a[col * size + j] /= diagonal;
      inv[col * size + j] /= diagonal;
    }
    for (let row = 0; row < size; row++) {
      if (row === col) continue;
      const factor = a[row * size + col];
      if (factor === 0) continue;
      for (let j = 0; j < size; j++) {
        a[row * size + j] -= factor * a[col * size + j];
        inv[row * size + j] -= factor * inv[col * size + j];
      }
    }
  }
  return inv;
}
