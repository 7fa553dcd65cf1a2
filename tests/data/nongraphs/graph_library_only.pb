)
'

add_one
x
y
oneConst