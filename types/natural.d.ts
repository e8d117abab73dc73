declare module "natural/lib/natural/stemmers/*.js" {
  const stemmer: { stem(word: string): string };
  export default stemmer;
}
declare module "ml-logistic-regression" {
  import type { Matrix } from "ml-matrix";
  export default class LogisticRegression {
    constructor(options?: { numSteps?: number; learningRate?: number });
    train(X: Matrix, Y: Matrix | number[]): void;
    predict(X: Matrix): number[];
    classifiers: { weights: Matrix; predictProbability(X: Matrix): number[] }[];
  }
}
