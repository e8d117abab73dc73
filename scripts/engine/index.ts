export { TYPES, type KnowledgeType, type Label, type Unit, type ClassifiedUnit, type UnitKind, type Fence } from "./types.js";
export { segment, isStructure } from "./units.js";
export { classifyUnits, classifyMarkdown, classifySentence, regexClassifier, type Classifier } from "./classify.js";
export { alignLabels, type LineLabel, type GoldUnit } from "./gold.js";
