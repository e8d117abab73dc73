/**
 * Refuse, with one line, input that would not fit this Node's heap, instead of V8's out-of-memory abort (a stack
 * trace and exit 134). Edge module: reads the heap limit from node:v8.
 */
import { getHeapStatistics } from "node:v8";
import { UsageError } from "../errors.js";

/**
 * Bytes of V8 heap per character of input at the peak of a run, by command. classify streams (units in batches,
 * rows written as they are made): 50 MB of markdown with `--json` inside an 88 MiB heap limit
 * (`node --max-old-space-size=40`), under 2 bytes per character; 4 leaves room for UTF-16 input, decoded whole.
 * compact, decompose and retrieve hold every unit of the input with its scores: 5.3 MB of one-line rules needed
 * between 100 and 120 MiB of old space for compact and 120-160 MiB for retrieve (`--max-old-space-size` bisected by
 * hand), about 24-30 bytes per character; 32 keeps a margin.
 */
export const HEAP_BYTES_PER_CHAR = { classify: 4, whole: 32 } as const;

/**
 * Heap a run holds before its input (the program, the model, the parsed tables), in bytes, added to the per-character
 * need for compact, decompose and retrieve: 1.7 MB of short sectioned rules ran out of an 88 MiB heap limit
 * (`--max-old-space-size=40`) and fit a 98 MiB one (50), about 40 MiB over 32 bytes per character; 48 MiB keeps a margin.
 * classify's 4 bytes per character already holds its base at the sizes the check looks at (8 MB and up).
 */
export const HEAP_BASE_BYTES = { classify: 0, whole: 48 * 1024 * 1024 } as const;

/** Inputs smaller than this in total are not checked: they fit any heap Node starts with. */
const CHECK_FROM_CHARS = 1024 * 1024;

/**
 * Throws UsageError when `chars` characters of input, at `bytesPerChar` plus `baseBytes`, would not fit this Node's heap limit. The
 * message names what is read (`what`, e.g. "compact big.md"), the sizes and the way out.
 */
export function checkHeapRoom(chars: number, what: string, bytesPerChar: number, baseBytes = 0): void {
  if (chars < CHECK_FROM_CHARS) return;
  const limit = getHeapStatistics().heap_size_limit;
  const need = chars * bytesPerChar + baseBytes;
  if (need <= limit) return;
  const mib = (n: number): number => Math.ceil(n / (1024 * 1024));
  throw new UsageError(
    `cannot ${what}: ${mib(chars)} MiB of input needs about ${mib(need)} MiB of memory, more than this Node's heap limit of ${mib(limit)} MiB (split the input, or raise the limit: NODE_OPTIONS=--max-old-space-size=${mib(need) + 512})`,
  );
}
