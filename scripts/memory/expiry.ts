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
/** Month names (stems) of en, de, es, ru in calendar order. */
const MONTHS: readonly string[][] = [
  ["jan", "jän", "ene", "янв"], ["feb", "feb", "feb", "фев"], ["mar", "mär", "mar", "мар"], ["apr", "apr", "abr", "апр"],
  ["may", "mai", "may", "мая", "май"], ["jun", "jun", "jun", "июн"], ["jul", "jul", "jul", "июл"], ["aug", "aug", "ago", "авг"],
  ["sep", "sep", "sep", "сен"], ["oct", "okt", "oct", "окт"], ["nov", "nov", "nov", "ноя"], ["dec", "dez", "dic", "дек"],
];
/** A day and month without a year: "March 15" (month first), "15 March", "15. März", "15 de marzo", "15 марта" (day first), "3月15日", "3월 15일". */
const MONTH_FIRST = /(?<![\p{L}])(\p{L}{3,})\.?\s+(\d{1,2})(?!\d)/gu;
const DAY_FIRST = /(?<!\d)(\d{1,2})\.?\s+(?:de\s+)?(\p{L}{3,})/gu;
const CJK_DAY = /(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일]/u;

/** Month (1-12) of a month name (MONTHS), or 0. */
function monthOf(name: string): number {
  const n = name.toLowerCase();
  return MONTHS.findIndex((alts) => alts.some((a) => n.startsWith(a))) + 1;
}

/** Month (1-12) and day of a day named without a year, or undefined. */
function namedDay(text: string): { month: number; day: number } | undefined {
  const cjk = CJK_DAY.exec(text);
  if (cjk) return { month: Number(cjk[1]), day: Number(cjk[2]) };
  for (const m of text.matchAll(MONTH_FIRST)) if (monthOf(m[1] as string)) return { month: monthOf(m[1] as string), day: Number(m[2]) };
  for (const m of text.matchAll(DAY_FIRST)) if (monthOf(m[2] as string)) return { month: monthOf(m[2] as string), day: Number(m[1]) };
  return undefined;
}

/** The expiry phrase of a sentence ("until the release on Friday", "temporarily", 今日だけ), or undefined. */
export function expiryPhrase(text: string): string | undefined {
  const m = EXPIRY_PHRASE_RE.exec(text);
  return m ? m[0].trim().replace(/[,.;:!?，。]+$/u, "") : undefined;
}

/**
 * When a rule with expiry phrase `until`, said at `statedAt` (ISO), stops applying: the end of an ISO day named in
 * it (23:59:59.999 UTC), the end of the day it was said for "today", the end of a day named without a year ("March 15",
 * "15. März", "3月15日": the next such day on or after `statedAt`), seven days later for "this week"; undefined
 * for an event or without `statedAt`.
 */
export function expiresAt(until: string, statedAt: string | undefined): string | undefined {
  const d = ISO_DAY.exec(until);
  if (d) return `${d[1]}-${d[2]}-${d[3]}T23:59:59.999Z`;
  if (statedAt === undefined || Number.isNaN(Date.parse(statedAt))) return undefined;
  if (TODAY.test(until)) return `${statedAt.slice(0, 10)}T23:59:59.999Z`;
  // A day without a year is the next such day on or after the day it was said.
  const nd = namedDay(until);
  if (nd && nd.month >= 1 && nd.month <= 12 && nd.day >= 1 && nd.day <= 31) {
    const said = new Date(statedAt);
    let year = said.getUTCFullYear();
    const pad = (n: number): string => String(n).padStart(2, "0");
    if (`${year}-${pad(nd.month)}-${pad(nd.day)}` < statedAt.slice(0, 10)) year++;
    return `${year}-${pad(nd.month)}-${pad(nd.day)}T23:59:59.999Z`;
  }
  if (WEEK.test(until)) return new Date(Date.parse(statedAt) + 7 * 86_400_000).toISOString();
  return undefined;
}
