// The statistics of a check: value objects that come in bulk (24 chart buckets and 7 days of web
// statistics per device, so thousands on a page of devices). Each is mapped to its GraphQL shape
// once, when its list is resolved, rather than through one resolver per field: the executor then
// reads each field as a plain property, where a resolver call costs it a closure, a resolve info
// and a response path per field (about half of what a device page allocated).
import type { ChartBucket, WebStat } from '../../generated/resolvers.ts';
import type { WireChartBucket, WireWebStat } from './wire.ts';

export function webStats(stats: readonly WireWebStat[]): WebStat[] {
  return stats.map((stat) => ({
    datetime: stat.datetime,
    wafProtection: stat.waf_protection,
    totalManagedRequests: stat.total_managed_requests,
  }));
}

export function chartBuckets(buckets: readonly WireChartBucket[]): ChartBucket[] {
  return buckets.map((bucket) => ({
    bucketStart: bucket.bucket_start,
    bucketEnd: bucket.bucket_end,
    totalRequests: bucket.total_requests,
    maliciousRequests: bucket.malicious_requests,
  }));
}
