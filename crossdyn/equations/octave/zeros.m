% zeros(...) inside the user's function returns a batch of zeros while a crossdyn batch call runs (so that
% `M = zeros(3); M(1,1) = ...` works); everywhere else it is Octave's own (crossdyn.equations.octave_model).
function z = zeros(varargin)
  global crossdyn_batch_n__
  z = builtin('zeros', varargin{:});
  if ~isempty(crossdyn_batch_n__) && crossdyn_batch_n__ > 0 && (nargin == 0 || ~ischar(varargin{end}))
    z = crossdyn_value__(z .* ones(1, 1, crossdyn_batch_n__));
  end
end
