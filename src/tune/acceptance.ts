// The noise-aware acceptance rule of apply-config-improvements, shared by the threshold stage and run-time tuning.

/** The acceptance rule alone. */
export function classifyImprovement(oldScore: number, newScore: number, oldCv: number, newCv: number, thresholdPercent: number): { status: 'accepted' | 'slower' | 'marginal' | 'noisy'; changePercent: number; boundPercent: number } {
  const changePercent = ((newScore - oldScore) / oldScore) * 100;
  const noise = 1.96 * Math.sqrt(oldCv * oldCv + newCv * newCv) * 100;
  const boundPercent = Math.max(thresholdPercent, noise);
  let status: 'accepted' | 'slower' | 'marginal' | 'noisy';
  if (!(changePercent > 0)) status = 'slower';
  else if (changePercent <= thresholdPercent) status = 'marginal';
  else if (changePercent <= boundPercent) status = 'noisy';
  else status = 'accepted';
  return { status, changePercent, boundPercent };
}
