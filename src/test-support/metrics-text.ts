/**
 * A `/metrics` scrape without the `islet_instance` label every series carries (the instance id,
 * new at every start), so tests can name a series by the labels they care about.
 * @example expect(unlabelled(body)).toContain('islet_deliveries_total{app="demo",…} 1');
 */
export function unlabelled(text: string): string {
  // prom-client puts it last, except on a histogram's _sum and _count where it comes first.
  return text.replaceAll(/,islet_instance="[^"]*"/g, '').replaceAll(/islet_instance="[^"]*",?/g, '').replaceAll('{}', '');
}
