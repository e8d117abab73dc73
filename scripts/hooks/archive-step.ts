/**
 * The archive step of the hooks (scripts/memory/archive/archive.ts): never throws, so a failing archive (full disk,
 * read-only folder, bad settings file) is one log line and the hook goes on to extract and print as before.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { archiveDir, archiveTranscript, sessionDirName } from "../memory/archive/archive.js";

/** Archive `transcriptPath` for `sessionId` into `rulesDir/archive/`; failures go to `log` as errors ("error: archive failed: ...", counted by `triage status`). */
export async function archiveStep(transcriptPath: string, rulesDir: string, sessionId: string | undefined, log: (message: string, debug?: boolean) => void): Promise<void> {
  try {
    const r = await archiveTranscript({ transcriptPath, rulesDir, sessionId: sessionId ?? "unknown" });
    log(`archive: ${r.copy} ${r.bytes} bytes, ${r.indexedMessages} messages indexed${r.removedSessions.length ? `, retention removed ${r.removedSessions.length} sessions` : ""}`, true);
  } catch (e) {
    log(`error: archive failed: ${(e as Error)?.message ?? String(e)}`);
  }
}

/** True when this session already has an archive (a compaction archived it): SessionEnd then leaves it as it is. */
export const hasArchive = (rulesDir: string, sessionId: string | undefined): boolean => existsSync(join(archiveDir(rulesDir), sessionDirName(sessionId ?? "unknown"), "state.json"));
