import { Redactor } from '../lifecycle/redaction/redactor.js';
import type { DataCollector } from './collectors/data-collector.js';
import type { ProfileRecord } from './storage/profile-record.js';

/** A text full-text search indexes, and the panel (collector) it comes from. */
export interface SearchedText {
  panel: string;
  label: string;
  text: string;
}

/**
 * The texts a full-text search finds a profile by: each collector's searchText() of its data as collected (compact,
 * as stored), redacted.
 */
export function profileTexts(collectors: readonly DataCollector[], record: ProfileRecord): SearchedText[] {
  const texts: SearchedText[] = [];
  for (const collector of collectors) {
    const data = record.data[collector.name];
    if (!collector.searchText || data === undefined || data === null) continue;
    try {
      // Collected data is redacted where it is collected; the text passes the redaction again, as a printed
      // line does, so that no statement or message of a collector that missed a secret makes it searchable.
      for (const text of collector.searchText(data)) {
        texts.push({
          panel: collector.name,
          label: collector.label,
          text: Redactor.mayHoldSecret(text) ? Redactor.text(text) : text,
        });
      }
    } catch {
      // Data a collector cannot read (one of an older shape) leaves its words out; the profile is stored.
    }
  }
  return texts;
}
