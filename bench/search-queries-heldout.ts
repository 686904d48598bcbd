/**
 * A second, held-out question set on phaser@3.90.0 src/, written on 2026-11-26 (s15, 19:10 UTC) from file names
 * and their doc comments BEFORE any result of the ranking was looked at for them, to check that a ranking change
 * tuned while reading phaser's first set (`EVAL_QUERIES`) is not fitted to those 50 questions. Not tuned against.
 */
import type { EvalQuery } from './search-queries';

export const PHASER_HELDOUT: EvalQuery[] = [
  { query: 'product of all positive whole numbers up to n', answers: ['math/Factorial.js'], kind: 'paraphrase' },
  { query: 'check whether a whole number is divisible by two', answers: ['math/IsEven.js', 'math/IsEvenStrict.js'], kind: 'paraphrase' },
  { query: 'mean of a list of numbers', answers: ['math/Average.js'], kind: 'paraphrase' },
  { query: 'area enclosed by a circle', answers: ['geom/circle/Area.js'], kind: 'paraphrase' },
  { query: 'point on a line closest to a given point', answers: ['geom/line/GetNearestPoint.js'], kind: 'paraphrase' },
  { query: 'bounce an angle off a surface like light off a mirror', answers: ['geom/line/ReflectAngle.js'], kind: 'paraphrase' },
  { query: 'integer pixel positions along a line for drawing it', answers: ['geom/line/BresenhamPoints.js'], kind: 'paraphrase' },
  { query: 'turn nested arrays into a single flat array', answers: ['utils/array/Flatten.js'], kind: 'paraphrase' },
  { query: 'take out a random element of an array and return it', answers: ['utils/array/RemoveRandomElement.js'], kind: 'paraphrase' },
  { query: 'move an item to the end of an array so it is drawn on top', answers: ['utils/array/BringToTop.js'], kind: 'paraphrase' },
  { query: 'smooth curve that passes through a list of points', answers: ['curves/SplineCurve.js', 'math/CatmullRom.js'], kind: 'paraphrase' },
  { query: 'lock the mouse pointer to the game canvas', answers: ['input/mouse/MouseManager.js'], kind: 'paraphrase' },
  { query: 'make the camera follow a sprite as it moves', answers: ['cameras/2d/Camera.js'], kind: 'paraphrase' },
  { query: 'convert hue saturation lightness to a colour', answers: ['display/color/HSLToColor.js'], kind: 'paraphrase' },
  { query: 'run several tweens one after another', answers: ['tweens/tween/TweenChain.js'], kind: 'paraphrase' },
];

/**
 * Questions in words on Ruby and Go code from Debian (2026-11-28), the misses a user's walk found (sinatra's template
 * rendering, cobra's help command) and a few more written from file names and doc comments before their ranking was
 * looked at. Answers are paths under the corpus folders of bench/search-eval.ts (`sinatra`, `cobra`).
 */
export const SINATRA_QUERIES: EvalQuery[] = [
  { query: 'how are templates rendered', answers: ['lib/sinatra/base.rb'], kind: 'paraphrase' },
  { query: 'render a template', answers: ['lib/sinatra/base.rb'], kind: 'paraphrase' },
  { query: 'show a debug page with the backtrace when an exception is raised', answers: ['lib/sinatra/show_exceptions.rb'], kind: 'paraphrase' },
  { query: 'hash whose keys can be strings or symbols', answers: ['lib/sinatra/indifferent_hash.rb'], kind: 'paraphrase' },
  { query: 'run the application when the file is executed directly', answers: ['lib/sinatra/main.rb'], kind: 'paraphrase' },
];

export const COBRA_QUERIES: EvalQuery[] = [
  { query: 'help command', answers: ['command.go'], kind: 'paraphrase' },
  { query: 'how is the help command generated', answers: ['command.go'], kind: 'paraphrase' },
  { query: 'generate a man page for a command', answers: ['doc/man_docs.go'], kind: 'paraphrase' },
  { query: 'shell completion script for fish', answers: ['fish_completions.go'], kind: 'paraphrase' },
  { query: 'validate the number of positional arguments', answers: ['args.go'], kind: 'paraphrase' },
  { query: 'flags that must be used together', answers: ['flag_groups.go'], kind: 'paraphrase' },
  { query: 'suggest a command when the user mistypes one', answers: ['command.go'], kind: 'paraphrase' },
  { query: 'markdown documentation for commands', answers: ['doc/md_docs.go'], kind: 'paraphrase' },
];
