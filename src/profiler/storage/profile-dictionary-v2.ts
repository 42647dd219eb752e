import text from './profile-dictionary-v2.json' with { type: 'json' };

/**
 * Formats 2 and 3's preset dictionary: the JSON of real profiles, the one requests repeat most closely last (zlib
 * favours what comes last). NEVER EDIT: blobs decode only with exactly these bytes; a better one is a new format.
 */
export const DICTIONARY_V2 = Buffer.from(text, 'utf8');
