/** Public API of the type-aware operators (pure functions over classified units). */
export { compact, type CompactResult, type CompactOptions, type CompactUnitReport, type CompactAction } from "./compact.js";
export { decompose, governs, localityViolations, scopeHeadings, type MemoryDoc, type Partition, type BaseRule, type Decomposition, type DecomposeOptions } from "./decompose.js";
export { retrieve, type RetrieveHit, type RetrieveOptions, type RetrieveResult } from "./retrieve.js";
export { inferScope, inferUnitScope, matchesPath, normaliseGlob, globsOverlap, headingTopic, namedIdentifiers, namesRules, frontmatterGlobs, type Scope } from "./scope.js";
export { isRule, isPinned, ruleMass, classifyForOperators, unitValues, DEFAULT_PIN_MASS, DEFAULT_COPY_MASS, type OperatorUnit, type PolicyOptions } from "./policy.js";
export { compressText, protectedTokens, jaccard } from "./compress.js";
export { terms, bm25Index, type Bm25Index } from "./bm25.js";
