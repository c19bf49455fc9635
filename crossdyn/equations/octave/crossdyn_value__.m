% A batch value (crossdyn.equations.octave_model): an r x c matrix per state, stored r x c x N.  The user's
% function runs ONCE with q (and the parameters that differ between sets) as batch values; every operator works
% state by state.  Anything it does not support (a comparison in an if, a function it does not overload,
% assigning into a plain matrix other than zeros(...)) raises an error and the loop takes over, and the first
% and last states of the first and last sets are always recomputed one at a time and must agree.
classdef crossdyn_value__
  properties
    v
  end
  methods
    function o = crossdyn_value__(v)
      o.v = v;
    end
    function r = plus(a, b), r = crossdyn_value__(crossdyn_v__(a) + crossdyn_v__(b)); end
    function r = minus(a, b), r = crossdyn_value__(crossdyn_v__(a) - crossdyn_v__(b)); end
    function r = times(a, b), r = crossdyn_value__(crossdyn_v__(a) .* crossdyn_v__(b)); end
    function r = rdivide(a, b), r = crossdyn_value__(crossdyn_v__(a) ./ crossdyn_v__(b)); end
    function r = ldivide(a, b), r = crossdyn_value__(crossdyn_v__(a) .\ crossdyn_v__(b)); end
    function r = power(a, b), r = crossdyn_value__(crossdyn_v__(a) .^ crossdyn_v__(b)); end
    function r = uminus(a), r = crossdyn_value__(-crossdyn_v__(a)); end
    function r = uplus(a), r = a; end
    function r = mtimes(a, b)
      A = crossdyn_v__(a); B = crossdyn_v__(b);
      if (size(A, 1) == 1 && size(A, 2) == 1) || (size(B, 1) == 1 && size(B, 2) == 1)
        r = crossdyn_value__(A .* B);
      elseif size(A, 2) == size(B, 1)
        r = 0;
        for k = 1:size(A, 2)
          r = r + A(:, k, :) .* B(k, :, :);
        end
        r = crossdyn_value__(r);
      else
        error('crossdyn:batch', 'mtimes: nonconformant');
      end
    end
    function r = mrdivide(a, b)
      B = crossdyn_v__(b);
      if size(B, 1) ~= 1 || size(B, 2) ~= 1, error('crossdyn:batch', 'mrdivide'); end
      r = crossdyn_value__(crossdyn_v__(a) ./ B);
    end
    function r = mpower(a, b)
      A = crossdyn_v__(a); B = crossdyn_v__(b);
      if size(A, 1) ~= 1 || size(A, 2) ~= 1 || size(B, 1) ~= 1 || size(B, 2) ~= 1, error('crossdyn:batch', 'mpower'); end
      r = crossdyn_value__(A .^ B);
    end
    function r = transpose(a), r = crossdyn_value__(permute(crossdyn_v__(a), [2 1 3])); end
    function r = ctranspose(a), r = crossdyn_value__(permute(crossdyn_v__(a), [2 1 3])); end
    function r = horzcat(varargin), r = crossdyn_value__(cat(2, crossdyn_expand__(varargin){:})); end
    function r = vertcat(varargin), r = crossdyn_value__(cat(1, crossdyn_expand__(varargin){:})); end
    function r = cos(a), r = crossdyn_value__(cos(a.v)); end
    function r = sin(a), r = crossdyn_value__(sin(a.v)); end
    function r = tan(a), r = crossdyn_value__(tan(a.v)); end
    function r = sec(a), r = crossdyn_value__(sec(a.v)); end
    function r = sqrt(a), r = crossdyn_value__(sqrt(a.v)); end
    function r = exp(a), r = crossdyn_value__(exp(a.v)); end
    function r = abs(a), r = crossdyn_value__(abs(a.v)); end
    function r = sign(a), r = crossdyn_value__(sign(a.v)); end
    function r = atan2(a, b), r = crossdyn_value__(atan2(crossdyn_v__(a) .* ones(size(crossdyn_v__(b))), crossdyn_v__(b) .* ones(size(crossdyn_v__(a))))); end
    function r = sum(a, d)
      x = a.v;
      if nargin < 2
        if size(x, 1) == 1, d = 2; else, d = 1; end
      end
      r = crossdyn_value__(sum(x, d));
    end
    function r = reshape(a, varargin)
      % per state, column-major, as MATLAB's reshape (matlabFunction writes M = reshape([...], [n, n]))
      if numel(varargin) == 1, sz = varargin{1}; else, sz = [varargin{:}]; end
      if numel(sz) ~= 2, error('crossdyn:batch', 'reshape'); end
      x = a.v;
      r = crossdyn_value__(reshape(x, sz(1), sz(2), size(x, 3)));
    end
    function r = cumsum(a, d)
      x = a.v;
      if nargin < 2
        if size(x, 1) == 1, d = 2; else, d = 1; end
      end
      r = crossdyn_value__(cumsum(x, d));
    end
    function r = subsref(a, s)
      if strcmp(s(1).type, '.') && strcmp(s(1).subs, 'v')
        r = builtin('subsref', a, s(1));
      elseif strcmp(s(1).type, '()')
        x = builtin('subsref', a, struct('type', '.', 'subs', 'v'));
        idx = s(1).subs;
        N = size(x, 3);
        if numel(idx) == 1
          flat = reshape(x, size(x, 1) * size(x, 2), N);
          y = flat(idx{1}, :);
          if size(x, 1) == 1, r = crossdyn_value__(reshape(y, 1, [], N)); else, r = crossdyn_value__(reshape(y, [], 1, N)); end
        elseif numel(idx) == 2
          r = crossdyn_value__(x(idx{1}, idx{2}, :));
        else
          error('crossdyn:batch', 'subsref');
        end
      else
        error('crossdyn:batch', 'subsref');
      end
      if numel(s) > 1, r = subsref(r, s(2:end)); end
    end
    function a = subsasgn(a, s, b)
      if ~strcmp(s(1).type, '()') || numel(s) > 1, error('crossdyn:batch', 'subsasgn'); end
      x = a.v; B = crossdyn_v__(b);
      N = max(size(x, 3), size(B, 3));
      if size(x, 3) < N, x = x .* ones(1, 1, N); end
      idx = s(1).subs;
      if numel(idx) == 1
        r = size(x, 1); c = size(x, 2);
        flat = reshape(x, r * c, N);
        flat(idx{1}, :) = reshape(B, [], size(B, 3)) .* ones(1, N);
        a.v = reshape(flat, r, c, N);
      elseif numel(idx) == 2
        x(idx{1}, idx{2}, :) = B .* ones(1, 1, N);
        a.v = x;
      else
        error('crossdyn:batch', 'subsasgn');
      end
    end
    function r = size(a, k)
      sz = [size(a.v, 1) size(a.v, 2)];
      if nargin > 1, r = sz(k); else, r = sz; end
    end
    function r = numel(a, varargin), r = size(a.v, 1) * size(a.v, 2); end
    function r = length(a), r = max(size(a.v, 1), size(a.v, 2)); end
    function r = rows(a), r = size(a.v, 1); end
    function r = columns(a), r = size(a.v, 2); end
    function r = ndims(a), r = 2; end
    function r = isempty(a), r = isempty(a.v); end
    function r = isscalar(a), r = size(a.v, 1) == 1 && size(a.v, 2) == 1; end
    function r = isvector(a), r = size(a.v, 1) == 1 || size(a.v, 2) == 1; end
    function r = iscolumn(a), r = size(a.v, 2) == 1; end
    function r = isrow(a), r = size(a.v, 1) == 1; end
    function r = isnumeric(a), r = true; end
    function r = isreal(a), r = isreal(a.v); end
    function r = end(a, k, n)
      sz = [size(a.v, 1) size(a.v, 2)];
      if n == 1, r = prod(sz); else, r = sz(k); end
    end
  end
end
function x = crossdyn_v__(a)
  if isa(a, 'crossdyn_value__'), x = builtin('subsref', a, struct('type', '.', 'subs', 'v')); else, x = a; end
end
function c = crossdyn_expand__(args)
  N = 1;
  for k = 1:numel(args)
    if isa(args{k}, 'crossdyn_value__'), N = size(crossdyn_v__(args{k}), 3); end
  end
  c = cell(size(args));
  for k = 1:numel(args)
    x = crossdyn_v__(args{k});
    if size(x, 3) ~= N, x = x .* ones(1, 1, N); end
    c{k} = x;
  end
end
