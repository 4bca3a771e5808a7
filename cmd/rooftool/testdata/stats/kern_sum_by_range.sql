-- nsys stats -r cuda_gpu_kern_sum, per NVTX range path, in plain SQLite.
--
-- nsys's report (cuda_gpu_kern_sum.py) groups CUPTI_ACTIVITY_KIND_KERNEL by
-- the demangled name (StringIds) and takes sum, count, avg, median, min, max
-- and stdev of end - start; Time (%) is round(total * 100.0 / sum of totals,
-- 1); Avg, Med and StdDev are round(x, 1); rows go by total desc, instances,
-- name. median and stdev are functions nsys registers from Python: here the
-- median is the middle duration (mean of the two middle ones for an even
-- count) and stdev the sample standard deviation (n - 1), 0 for one launch.
--
-- Each kernel belongs to the path (outer/inner, joined with '/') of the NVTX
-- push/pop ranges (eventType 59) that enclose its launching runtime call on
-- the same thread; kernels with none form the range '-', listed last. The
-- percentage is of the range's total. Without NVTX ranges this is nsys's
-- report plus a Range column of '-'.
WITH kr AS (
  SELECT k.rowid AS kid, k.end - k.start AS dur, s.value AS name, c.globalTid AS tid, c.start AS cs, c.end AS ce
  FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON s.id = k.demangledName
  LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS c ON c.correlationId = k.correlationId),
enc AS (
  SELECT kr.kid, n.text FROM kr JOIN NVTX_EVENTS AS n
    ON n.eventType = 59 AND n.globalTid = kr.tid AND n.start <= kr.cs AND kr.ce <= n.end
  ORDER BY kr.kid, n.start, n.end DESC),
p AS (SELECT kid, group_concat(text, '/') AS path FROM enc GROUP BY kid),
d AS (SELECT coalesce(p.path, '-') AS rng, kr.name, kr.dur FROM kr LEFT JOIN p USING (kid)),
r AS (
  SELECT rng, name, dur, row_number() OVER w AS i, count(*) OVER w AS n, avg(dur) OVER w AS mean
  FROM d WINDOW w AS (PARTITION BY rng, name ORDER BY dur ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)),
summary AS (
  SELECT rng, name, sum(dur) AS total, count(*) AS num, avg(dur) AS avg,
    avg(CASE WHEN i IN ((n + 1) / 2, (n + 2) / 2) THEN dur END) AS med,
    min(dur) AS min, max(dur) AS max,
    coalesce(sqrt(sum((dur - mean) * (dur - mean)) / (count(*) - 1)), 0) AS stddev
  FROM r GROUP BY rng, name)
SELECT round(total * 100.0 / sum(total) OVER (PARTITION BY rng), 1), total, num,
  round(avg, 1), round(med, 1), min, max, round(stddev, 1), name, rng
FROM summary ORDER BY rng = '-', rng, total DESC, num, name;
