
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ"