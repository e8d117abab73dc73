/**
 * Expiry of a rule stated with an end ("until the release", "for today only", "bis 2026-12-24", "今天先别…"):
 * the phrase is kept with the rule (`until`), and an end that is a day can be computed from when the rule was
 * said (`expires`, ISO timestamp). An end that is an event ("until the migration is done") has no date: the rule
 * stays until the user withdraws it. Pure: "now" is the time of a later transcript line, never the clock.
 */
import { EXPIRY_PHRASE_RE } from "./durability.js";

const TODAY = /(?<![\p{L}])(?:today|tonight|heute|hoy|сегодня)(?![\p{L}])|今天|今日|本日|오늘/iu;
const WEEK = /(?<![\p{L}])(?:this week|diese woche|esta semana|на этой неделе)(?![\p{L}])|这周|本周|今週|이번 주/iu;
const ISO_DAY = /\b(\d{4})-(\d{2})-(\d{2})\b/;

/** The expiry phrase of a sentence ("until the release on Friday", "temporarily", 今日だけ), or undefined. */
export function expiryPhrase(text: string): string | undefined {
  const m = EXPIRY_PHRASE_RE.exec(text);
  return m ? m[0].trim().replace(/[,.;:!?，。]+$/u, "") : undefined;
}

/**
 * When a rule with expiry phrase `until`, said at `statedAt` (ISO), stops applying: the end of an ISO day named in
 * it (23:59:59.999 UTC), the end of the day it was said for "today", seven days later for "this week"; undefined
 * for an event or without `statedAt`.
 */
export function expiresAt(until: string, statedAt: string | undefined): string | undefined {
  const d = ISO_DAY.exec(until);
  if (d) return `${d[1]}-${d[2]}-${d[3]}T23:59:59.999Z`;
  if (statedAt === undefined || Number.isNaN(Date.parse(statedAt))) return undefined;
  if (TODAY.test(until)) return `${statedAt.slice(0, 10)}T23:59:59.999Z`;
  if (WEEK.test(until)) return new Date(Date.parse(statedAt) + 7 * 86_400_000).toISOString();
  return undefined;
}
